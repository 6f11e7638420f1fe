{{/* Refusals that span more than one value (the rest are in values.schema.json), each a sentence naming them. */}}
{{- define "htrbrowser.validate" -}}
{{- if and .Values.redis.url .Values.redis.existingSecret -}}
{{- fail "redis.url and redis.existingSecret are both set: give the redis URL one way only." -}}
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
