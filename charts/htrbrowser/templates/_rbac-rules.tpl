{{/*
The one place that says what this ServiceAccount may do: exactly the calls the app makes, one rule
a line. tests/chart/test_rbac.py records the app's requests against the devstack's API double and
fails, naming the (scope, verb, group, resource), when this list grants more or less than that.
*/}}

{{- define "htrbrowser.namespacedRules" -}}
- { apiGroups: [""], resources: [pods, events], verbs: [list, watch] }
- { apiGroups: [""], resources: [configmaps], verbs: [list, watch] }
- { apiGroups: [batch], resources: [jobs], verbs: [list, watch] }
- { apiGroups: [kueue.x-k8s.io], resources: [workloads, localqueues], verbs: [list, watch] }
- { apiGroups: [""], resources: [persistentvolumeclaims], verbs: [list, watch] }
{{- if .Values.statusRecords.enabled }}
{{- /* Writing status records; templates/admission-policy.yaml keeps these to campaign-<name>-status. */}}
- { apiGroups: [""], resources: [configmaps], verbs: [create, patch] }
{{- /*
The one status writer's Lease, and no other: htrflow-batch's own Leases (htrflow-campaigns-apply)
live in the same namespace. RBAC cannot limit `create` by name, so create has a rule of its own and
templates/admission-policy.yaml refuses this ServiceAccount any Lease but this one.
*/}}
- { apiGroups: [coordination.k8s.io], resources: [leases], resourceNames: [{{ include "htrbrowser.statusLeaseName" . }}], verbs: [get, update] }
- { apiGroups: [coordination.k8s.io], resources: [leases], verbs: [create] }
{{- end }}
{{- end -}}

{{- define "htrbrowser.clusterRules" -}}
- { apiGroups: [kueue.x-k8s.io], resources: [clusterqueues, workloadpriorityclasses, resourceflavors], verbs: [list, watch] }
{{- end -}}

{{- /* In Kueue's own namespace (kube.kueueNamespace): whether its controller runs. */}}
{{- define "htrbrowser.kueueRules" -}}
- { apiGroups: [apps], resources: [deployments], verbs: [list, watch] }
- { apiGroups: [""], resources: [pods], verbs: [list, watch] }
{{- end -}}
