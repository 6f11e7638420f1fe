{{/*
Refusals that span more than one value or need the cluster (the rest are in values.schema.json):
every problem found is one sentence naming the value to set, and all of them are given at once, so
one render says everything a values file lacks.
*/}}
{{- define "htrbrowser.validate" -}}
{{- $problems := list -}}
{{- if not (or .Values.image.tag .Values.image.digest) -}}
{{- $problems = append $problems (printf "image.tag and image.digest are empty: no htrbrowser image is published for the chart to pull from %s, so the pods would end in ImagePullBackOff; build the image from the Dockerfile at the root of this repository (docs/operating.md, \"The container image\"), push it to a registry the cluster pulls from, and set image.repository with image.digest (sha256:…) or image.tag." .Values.image.repository) -}}
{{- end -}}
{{- /* htrflow-batch's keys are read or warned about in NOTES (templates/_foreign.tpl); these two cannot work here. */ -}}
{{- if eq (toString (dig "s3InNamespace" false (.Values.network | default dict))) "true" -}}
{{- $problems = append $problems "network.s3InNamespace is true (htrflow-batch's value: a store inside the namespace): this chart's NetworkPolicy reaches the store only at network.s3Cidrs; remove network.s3InNamespace and add an egress rule with the store's pod labels to network.extraEgress." -}}
{{- end -}}
{{- if eq (toString (dig "web" "allowPublicIngress" false (.Values.network | default dict))) "true" -}}
{{- $problems = append $problems "network.web.allowPublicIngress is true (htrflow-batch's value): this chart admits browsers only from the ranges it is given; list them in network.ingressCidrs (0.0.0.0/0 and ::/0 for every address) and remove network.web.allowPublicIngress." -}}
{{- end -}}
{{- if and .Values.redis.url .Values.redis.existingSecret -}}
{{- $problems = append $problems "redis.url and redis.existingSecret are both set: give the redis URL one way only." -}}
{{- end -}}
{{- if and (gt (int .Values.replicas) 1) (not (or .Values.redis.url .Values.redis.existingSecret)) -}}
{{- $problems = append $problems (printf "replicas is %d but redis.url and redis.existingSecret are empty: each pod would keep its own feed addresses, remembered rights and login-failure counts, so a feed made on one pod answers 410 on another; set redis.existingSecret (or redis.url) to a redis the pods share, or set replicas to 1." (int .Values.replicas)) -}}
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
{{- if and (not $api.cidrs) (not .Values.network.apiServer.ciliumEntities) -}}
{{- $problems = append $problems (printf "network.apiServer.cidrs is empty and the API server's addresses could not be looked up (%s): set network.apiServer.cidrs to the addresses `kubectl get endpoints kubernetes -n default` shows (or, on Cilium, network.apiServer.ciliumEntities to true), or the NetworkPolicy would cut the pods off from the API or open it to any address." $noCluster) -}}
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
{{- $sources := include "htrbrowser.ingressSources" . | fromJson -}}
{{- if and .Values.network.enabled $proxied (not $sources.from) (not $sources.cidrs) -}}
{{- $problems = append $problems "an Ingress or HTTPRoute is rendered but network.ingressFrom and network.ingressCidrs are empty: the NetworkPolicy would let nothing in front reach the pods; set network.ingressFrom to the proxy's pods (values.yaml shows ingress-nginx, k3s's Traefik and a Gateway)." -}}
{{- end -}}
{{- if and (eq (toString .Values.web.https) "true") (not $proxied) (eq .Values.web.service.type "NodePort") -}}
{{- $problems = append $problems "web.https is true on a NodePort with no Ingress or HTTPRoute in front: nothing serves https there, so every request would be redirected to nowhere; set web.https to false (or leave it null), or render web.ingress or web.httpRoute with TLS in front." -}}
{{- end -}}
{{- if and $proxied (eq (include "htrbrowser.https" .) "true") (not (kindIs "invalid" .Values.web.trustedHops)) (eq (int .Values.web.trustedHops) 0) -}}
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
