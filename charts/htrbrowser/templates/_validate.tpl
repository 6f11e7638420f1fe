{{/* Refusals that span more than one value (the rest are in values.schema.json), each a sentence naming them. */}}
{{- define "htrbrowser.validate" -}}
{{- if and .Values.redis.url .Values.redis.existingSecret -}}
{{- fail "redis.url and redis.existingSecret are both set: give the redis URL one way only." -}}
{{- end -}}
{{- if .Values.network.enabled -}}
{{- $api := include "htrbrowser.apiServer" . | fromJson -}}
{{- if not $api.cidrs -}}
{{- fail (printf "network.apiServer.cidrs is empty and the API server's addresses could not be looked up (%s): set network.apiServer.cidrs to the addresses `kubectl get endpoints kubernetes -n default` shows, or the NetworkPolicy would cut the pods off from the API or open it to any address." (ternary "gitOps is true" "no cluster to ask, as under helm template or Argo CD" .Values.gitOps)) -}}
{{- end -}}
{{- if or .Values.redis.url .Values.redis.existingSecret -}}
{{- $redis := include "htrbrowser.redisEgress" . | fromJson -}}
{{- if not $redis.to -}}
{{- if .Values.redis.existingSecret -}}
{{- fail "redis.existingSecret hides the redis address from the chart: set network.redis.namespace (a redis in the cluster) or network.redis.cidrs, and network.redis.port if it is not 6379, so the NetworkPolicy lets the pods reach it." -}}
{{- else -}}
{{- fail (printf "redis.url names %s, which is not a Service in the cluster: set network.redis.cidrs to its addresses (or network.redis.namespace), so the NetworkPolicy lets the pods reach it." $redis.host) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $m := .Values.metrics -}}
{{- if and $m.serviceMonitor.enabled $m.podMonitor.enabled -}}
{{- fail "metrics.serviceMonitor.enabled and metrics.podMonitor.enabled are both true: turn one off, or every pod is scraped twice." -}}
{{- end -}}
{{- if and (not $m.enabled) (or $m.serviceMonitor.enabled $m.podMonitor.enabled $m.prometheusRule.enabled) -}}
{{- fail "metrics.serviceMonitor, metrics.podMonitor or metrics.prometheusRule is on while metrics.enabled is false: set metrics.enabled to true, or there is nothing to scrape." -}}
{{- end -}}
{{- $proxied := or .Values.web.ingress.enabled .Values.web.httpRoute.enabled -}}
{{- if and $proxied .Values.web.https (not (kindIs "invalid" .Values.web.trustedHops)) (eq (int .Values.web.trustedHops) 0) -}}
{{- fail "web.trustedHops is 0 while an Ingress or HTTPRoute is rendered and web.https is true: the site could never see the proxy's https and would redirect every request to https again. Leave web.trustedHops unset (null) or give the number of proxies in front." -}}
{{- end -}}
{{- end -}}
