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
app.kubernetes.io/version: {{ include "htrbrowser.versionLabel" . | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{/*
The version that runs: image.tag when the operator names one, else the chart's appVersion (an image
pinned by digest alone is still that release). A label value allows no `+`, `:` or `@`, and 63 characters.
*/}}
{{- define "htrbrowser.versionLabel" -}}
{{- regexReplaceAll "[^-A-Za-z0-9_.]" (.Values.image.tag | default .Chart.AppVersion | toString) "_" | trunc 63 | trimAll "-_." -}}
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
{{/* web.https, else on when an Ingress or HTTPRoute (which terminate the TLS) is rendered: "true"/"false". */}}
{{- define "htrbrowser.https" -}}
{{- if kindIs "invalid" .Values.web.https -}}
{{- or .Values.web.ingress.enabled .Values.web.httpRoute.enabled -}}
{{- else -}}
{{- .Values.web.https -}}
{{- end -}}
{{- end -}}

{{/*
The node port the Service asks for: web.nodePort, except htrflow-web's 30800 while both may run
(web.takeHtrflowWebPort false): "" = the cluster picks one.
*/}}
{{- define "htrbrowser.htrflowWebPort" -}}30800{{- end -}}
{{- define "htrbrowser.nodePort" -}}
{{- $port := .Values.web.nodePort -}}
{{- if and (not (kindIs "invalid" $port)) (ne .Values.web.service.type "ClusterIP") -}}
{{- if or .Values.web.takeHtrflowWebPort (ne (int $port) (int (include "htrbrowser.htrflowWebPort" .))) -}}
{{- $port -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* web.service.externalTrafficPolicy, else Local when network.ingressCidrs needs the browsers' own addresses. */}}
{{- define "htrbrowser.externalTrafficPolicy" -}}
{{- $cidrs := (include "htrbrowser.ingressSources" . | fromJson).cidrs -}}
{{- .Values.web.service.externalTrafficPolicy | default (ternary "Local" "Cluster" (and .Values.network.enabled (not (empty $cidrs)))) -}}
{{- end -}}

{{/*
Who may reach the web port: network.ingressFrom and network.ingressCidrs, each else htrflow-batch's
network.web.ingressFrom / network.web.ingressCidrs (its values file installs as it is), as JSON
{"from": [...], "cidrs": [...]}.
*/}}
{{- define "htrbrowser.ingressSources" -}}
{{- $net := .Values.network -}}
{{- $theirs := (get $net "web") | default dict -}}
{{- dict "from" ($net.ingressFrom | default (get $theirs "ingressFrom") | default list) "cidrs" ($net.ingressCidrs | default (get $theirs "ingressCidrs") | default list) | toJson -}}
{{- end -}}

{{/* A Kubernetes quantity ("384Mi", "1G", "402653184") in bytes, as a float; 0 when it cannot be read. */}}
{{- define "htrbrowser.bytes" -}}
{{- $q := toString . -}}
{{- $number := regexFind "^[0-9]+(\\.[0-9]+)?" $q -}}
{{- $unit := trimPrefix $number $q -}}
{{- $units := dict "" 1 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 -}}
{{- if and $number (hasKey $units $unit) -}}
{{- mulf (float64 $number) (index $units $unit) -}}
{{- else -}}
0
{{- end -}}
{{- end -}}

{{/*
This app's memory floor (benchmarks/RESULTS.md, five times the archive: the worker holds about 300 MiB,
gunicorn's master about 40 MiB more): the request at least 384Mi, a limit at least 512Mi.
*/}}
{{- define "htrbrowser.memoryFloors" -}}
{{- dict "requests" "384Mi" "limits" "512Mi" | toJson -}}
{{- end -}}

{{/* web.resources with the memory raised to the floors; "raised" lists what was raised, for NOTES. */}}
{{- define "htrbrowser.resources" -}}
{{- $resources := deepCopy (.Values.web.resources | default dict) -}}
{{- $raised := list -}}
{{- range $side, $floor := include "htrbrowser.memoryFloors" . | fromJson -}}
{{- $given := index ($resources | default dict) $side | default dict -}}
{{- $memory := index $given "memory" -}}
{{- if or (and (eq $side "requests") (not $memory)) (and $memory (lt (float64 (include "htrbrowser.bytes" $memory)) (float64 (include "htrbrowser.bytes" $floor)))) -}}
{{- $_ := set $given "memory" $floor -}}
{{- $_ := set $resources $side $given -}}
{{- $raised = append $raised (printf "%s.memory %s to %s" $side (toString ($memory | default "unset")) $floor) -}}
{{- end -}}
{{- end -}}
{{- dict "resources" $resources "raised" $raised | toJson -}}
{{- end -}}

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
{{- /* Django's wildcard is a leading dot: `*.example.org` (an Ingress's or Gateway's) is `.example.org`. */ -}}
{{- $django := list -}}
{{- range $hosts -}}
{{- $django = append $django (regexReplaceAll "^\\*\\." . ".") -}}
{{- end -}}
{{- join "," (uniq $django) -}}
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
