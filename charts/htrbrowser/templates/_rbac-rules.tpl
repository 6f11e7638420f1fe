{{/*
The one place that says what this ServiceAccount may do: exactly the calls the app makes
(tests/chart/test_rbac.py records them against the devstack's API double and compares).
Add a verb or a rule here and nowhere else.
*/}}

{{- define "htrbrowser.namespacedRules" -}}
- apiGroups: [""]
  resources: [pods, events]
  verbs: [list]
- apiGroups: [""]
  resources: [configmaps]
  verbs: [list{{ if .Values.statusRecords.enabled }}, create, patch{{ end }}]
- apiGroups: [batch]
  resources: [jobs]
  verbs: [list]
- apiGroups: [kueue.x-k8s.io]
  resources: [workloads, localqueues]
  verbs: [list]
{{- end -}}

{{- define "htrbrowser.clusterRules" -}}
- apiGroups: [kueue.x-k8s.io]
  resources: [clusterqueues, workloadpriorityclasses]
  verbs: [list]
{{- end -}}
