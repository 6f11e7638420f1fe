{{/*
Refusals that span more than one value or need the cluster (the rest are in values.schema.json):
every problem found is one sentence naming the value to set, and all of them are given at once, so
one render says everything a values file lacks.
*/}}
{{- define "htrbrowser.validate" -}}
{{- $problems := include "htrbrowser.foreignKeyProblems" . | fromJsonArray -}}
{{- if and .Values.redis.url .Values.redis.existingSecret -}}
{{- $problems = append $problems "redis.url and redis.existingSecret are both set: give the redis URL one way only." -}}
{{- end -}}
{{- $noCluster := ternary "gitOps is true" "there is no cluster to look it up in, as under helm template or Argo CD, or no right to read what it looks up" .Values.gitOps -}}
{{- if not (include "htrbrowser.mayGenerateSecrets" .) -}}
{{- if not .Values.results.sessionSecret -}}
{{- $problems = append $problems (printf "results.sessionSecret is empty and a generated session key would change on every render (%s): create a Secret with a key `key` (32 random bytes, base64) and set results.sessionSecret to its name." $noCluster) -}}
{{- end -}}
{{- if not .Values.django.secretKeySecret -}}
{{- $problems = append $problems (printf "django.secretKeySecret is empty and a generated Django key would change on every render (%s): create a Secret with a key `DJANGO_SECRET_KEY` (a long random string) and set django.secretKeySecret to its name." $noCluster) -}}
{{- end -}}
{{- end -}}
{{- if .Values.network.enabled -}}
{{- $api := include "htrbrowser.apiServer" . | fromJson -}}
{{- if not $api.cidrs -}}
{{- $problems = append $problems (printf "network.apiServer.cidrs is empty and the API server's addresses could not be looked up (%s): set network.apiServer.cidrs to the addresses `kubectl get endpoints kubernetes -n default` shows, or the NetworkPolicy would cut the pods off from the API or open it to any address." $noCluster) -}}
{{- end -}}
{{- if and (or .Values.redis.url .Values.redis.existingSecret) (not (and .Values.redis.url .Values.redis.existingSecret)) -}}
{{- $redis := include "htrbrowser.redisEgress" . | fromJson -}}
{{- if and (not $redis.to) .Values.redis.existingSecret -}}
{{- $problems = append $problems "redis.existingSecret hides the redis address from the chart: set network.redis.namespace (a redis in the cluster) or network.redis.cidrs, and network.redis.port if it is not 6379, so the NetworkPolicy lets the pods reach it." -}}
{{- else if not $redis.to -}}
{{- $problems = append $problems (printf "redis.url names %s, which is not a Service in the cluster: set network.redis.cidrs to its addresses (or network.redis.namespace), so the NetworkPolicy lets the pods reach it." $redis.host) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $m := .Values.metrics -}}
{{- if and $m.serviceMonitor.enabled $m.podMonitor.enabled -}}
{{- $problems = append $problems "metrics.serviceMonitor.enabled and metrics.podMonitor.enabled are both true: turn one off, or every pod is scraped twice." -}}
{{- end -}}
{{- if and (not $m.enabled) (or $m.serviceMonitor.enabled $m.podMonitor.enabled $m.prometheusRule.enabled $m.grafanaDashboard.enabled) -}}
{{- $problems = append $problems "metrics.serviceMonitor, metrics.podMonitor, metrics.prometheusRule or metrics.grafanaDashboard is on while metrics.enabled is false: set metrics.enabled to true, or there is nothing to scrape." -}}
{{- end -}}
{{- $proxied := or .Values.web.ingress.enabled .Values.web.httpRoute.enabled -}}
{{- if and $proxied .Values.web.https (not (kindIs "invalid" .Values.web.trustedHops)) (eq (int .Values.web.trustedHops) 0) -}}
{{- $problems = append $problems "web.trustedHops is 0 while an Ingress or HTTPRoute is rendered and web.https is true: the site could never see the proxy's https and would redirect every request to https again. Leave web.trustedHops unset (null) or give the number of proxies in front." -}}
{{- end -}}
{{- if and (eq .Values.web.service.type "ClusterIP") (not (kindIs "invalid" .Values.web.nodePort)) -}}
{{- $problems = append $problems "web.nodePort is set while web.service.type is ClusterIP: set web.service.type to NodePort, or leave web.nodePort null." -}}
{{- end -}}
{{- if and (not .Values.serviceAccount.create) (not .Values.serviceAccount.name) -}}
{{- $problems = append $problems "serviceAccount.create is false and serviceAccount.name is empty: name the ServiceAccount the pods run as." -}}
{{- end -}}
{{- if and (not .Values.clusterScoped) .Values.statusRecords.enabled -}}
{{- $problems = append $problems "clusterScoped is false while statusRecords.enabled is true: writing status records needs the ValidatingAdmissionPolicy that keeps the pods to their own ConfigMaps and Lease, a cluster-scoped object; set statusRecords.enabled to false (reads only), or have a cluster admin install with clusterScoped true." -}}
{{- end -}}
{{- with $problems -}}
{{- fail (printf "the values cannot be installed as they are:\n- %s" (join "\n- " .)) -}}
{{- end -}}
{{- end -}}
