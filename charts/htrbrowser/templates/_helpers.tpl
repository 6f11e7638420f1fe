{{/* Names, labels and the values several templates share. */}}

{{/* The chart's name in labels and object names: nameOverride, else htrbrowser. */}}
{{- define "htrbrowser.name" -}}
{{- .Values.nameOverride | default .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "htrbrowser.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "htrbrowser.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "htrbrowser.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Cluster-scoped objects carry the namespace too: two releases must not share one. */}}
{{- define "htrbrowser.clusterName" -}}
{{- printf "%s-%s" .Release.Namespace (include "htrbrowser.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "htrbrowser.selectorLabels" -}}
app.kubernetes.io/name: {{ include "htrbrowser.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The `helm test` pod's: never the Deployment's selector, which would adopt it. */}}
{{- define "htrbrowser.testLabels" -}}
app.kubernetes.io/name: {{ include "htrbrowser.name" . }}-test
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: helm-test
{{- end -}}

{{- define "htrbrowser.labels" -}}
{{ include "htrbrowser.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* serviceAccount.name when given (required with serviceAccount.create false), else the fullname. */}}
{{- define "htrbrowser.serviceAccountName" -}}
{{- .Values.serviceAccount.name | default (include "htrbrowser.fullname" .) -}}
{{- end -}}

{{/*
The Lease the app takes to be the one status writer in each namespace: LEASE_NAME in
campaigns/cluster/status_lease.py (fixed there, not derived from the release). The Role grants get/update on
it alone and the admission policy refuses this ServiceAccount any other Lease; tests/chart/test_rbac.py
fails when the two names part.
*/}}
{{- define "htrbrowser.statusLeaseName" -}}
htrbrowser-status-writer
{{- end -}}

{{- define "htrbrowser.serviceAccountUser" -}}
{{- printf "system:serviceaccount:%s:%s" .Release.Namespace (include "htrbrowser.serviceAccountName" .) -}}
{{- end -}}

{{- define "htrbrowser.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/* image.pullPolicy, else IfNotPresent for an image pinned by digest and Always for a tag (which can move). */}}
{{- define "htrbrowser.pullPolicy" -}}
{{- .Values.image.pullPolicy | default (ternary "IfNotPresent" "Always" (not (empty .Values.image.digest))) -}}
{{- end -}}

{{/* checkov findings that do not apply to a pod of this image, as annotations with their reasons. */}}
{{- define "htrbrowser.imageCheckovSkips" -}}
{{- if and .Values.image.digest (eq (include "htrbrowser.pullPolicy" .) "IfNotPresent") }}
checkov.io/skip-pull: CKV_K8S_15=the image is pinned by digest, so IfNotPresent always runs that very image
{{- end }}
{{- if not .Values.image.digest }}
checkov.io/skip-digest: CKV_K8S_43=no digest is known for an image not yet released; set image.digest
{{- end }}
{{- end -}}

{{- define "htrbrowser.namespaces" -}}
{{- if .Values.namespaces -}}
{{- join "," .Values.namespaces -}}
{{- else -}}
{{- .Release.Namespace -}}
{{- end -}}
{{- end -}}

{{- /*
Kueue's namespace as the app reads it: kube.kueueNamespace, and only with clusterScoped (a Role outside
the shown namespaces is for a cluster admin to install, as the ClusterRole is); "" = not read.
*/}}
{{- define "htrbrowser.kueueNamespace" -}}
{{- if .Values.clusterScoped -}}
{{- .Values.kube.kueueNamespace -}}
{{- end -}}
{{- end -}}

{{- define "htrbrowser.djangoSecretName" -}}
{{- .Values.django.secretKeySecret | default (printf "%s-django" (include "htrbrowser.fullname" .)) -}}
{{- end -}}

{{- define "htrbrowser.sessionSecretName" -}}
{{- .Values.results.sessionSecret | default (printf "%s-session" (include "htrbrowser.fullname" .)) -}}
{{- end -}}

{{/* A front proxy is installed here when an Ingress or an HTTPRoute is. */}}
{{- define "htrbrowser.trustedHops" -}}
{{- if kindIs "invalid" .Values.web.trustedHops -}}
{{- if or .Values.web.ingress.enabled .Values.web.httpRoute.enabled -}}1{{- else -}}0{{- end -}}
{{- else -}}
{{- .Values.web.trustedHops -}}
{{- end -}}
{{- end -}}

{{/* The names this site answers to: what the chart installs in front of it, then the operator's. */}}
{{- define "htrbrowser.allowedHosts" -}}
{{- $service := include "htrbrowser.fullname" . -}}
{{- $hosts := list -}}
{{- if and .Values.web.ingress.enabled .Values.web.ingress.host -}}
{{- $hosts = append $hosts .Values.web.ingress.host -}}
{{- end -}}
{{- if .Values.web.httpRoute.enabled -}}
{{- $hosts = concat $hosts .Values.web.httpRoute.hostnames -}}
{{- end -}}
{{- $hosts = concat $hosts .Values.web.allowedHosts -}}
{{- $hosts = concat $hosts (list $service (printf "%s.%s" $service .Release.Namespace) (printf "%s.%s.svc" $service .Release.Namespace) (printf "%s.%s.svc.cluster.local" $service .Release.Namespace) "localhost" "127.0.0.1") -}}
{{- join "," (uniq $hosts) -}}
{{- end -}}

{{/*
"true" when the chart may generate Secrets: it can see the cluster (the release namespace is there
to look up) and gitOps is off. Otherwise (helm template, Argo CD, gitOps) every render would make new
keys and log everyone out, so templates/_validate.tpl asks for existing Secrets instead.
tests/chart/test_secrets.py replaces this definition to render the generating side offline.
*/}}
{{- define "htrbrowser.mayGenerateSecrets" -}}
{{- if and (not .Values.gitOps) (lookup "v1" "Namespace" "" .Release.Namespace) -}}true{{- end -}}
{{- end -}}

{{/* A Secret's value generated once: the one already in the cluster is kept on every upgrade. */}}
{{- define "htrbrowser.keptSecretValue" -}}
{{- $existing := lookup "v1" "Secret" .namespace .name -}}
{{- if and $existing $existing.data (hasKey $existing.data .key) -}}
{{- index $existing.data .key -}}
{{- else -}}
{{- .generate | b64enc -}}
{{- end -}}
{{- end -}}
