{{/*
Where the pods' egress may go, worked out from what is configured. Each helper gives JSON, or ""
when the destination cannot be known; templates/_validate.tpl then refuses to render with a
sentence naming the value to set, so the NetworkPolicy never fails open.
*/}}

{{/*
The API server after service DNAT: network.apiServer.cidrs (and htrflow-batch's network.apiServer.cidr), else the `kubernetes` Endpoints looked
up at install (never under gitOps). Ports: 443 (managed clusters: EKS, GKE, AKS) and 6443 (kubeadm),
network.apiServer.port and the Endpoints' own, so either kind of cluster works with the same values.
*/}}
{{- define "htrbrowser.apiServer" -}}
{{- $net := .Values.network -}}
{{- $cidrs := $net.apiServer.cidrs | default list -}}
{{- /* htrflow-batch's single network.apiServer.cidr is one more address. */ -}}
{{- with get $net.apiServer "cidr" -}}
{{- $cidrs = append $cidrs . -}}
{{- end -}}
{{- $ports := list 443 6443 (int $net.apiServer.port) -}}
{{- if and (not $cidrs) (not .Values.gitOps) -}}
{{- $endpoints := lookup "v1" "Endpoints" "default" "kubernetes" -}}
{{- range $subset := ($endpoints.subsets | default list) -}}
{{- range $address := ($subset.addresses | default list) -}}
{{- $cidrs = append $cidrs (printf "%s/%s" $address.ip (ternary "128" "32" (contains ":" $address.ip))) -}}
{{- end -}}
{{- range $port := ($subset.ports | default list) -}}
{{- $ports = append $ports (int $port.port) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- dict "cidrs" (uniq $cidrs) "ports" (uniq $ports) | toJson -}}
{{- end -}}

{{/*
The redis the login limits are kept in (redis.url or redis.existingSecret), as a NetworkPolicy
egress rule's `to` and port: network.redis.cidrs when given; else network.redis.namespace (with
network.redis.podLabels); else the namespace of redis.url's host when that is a Service name
(`<service>` in the release namespace, `<service>.<namespace>.svc…`); an address in redis.url is
its own CIDR. "" when none of these says where the redis is.
*/}}
{{- define "htrbrowser.redisEgress" -}}
{{- $net := .Values.network.redis -}}
{{- $url := .Values.redis.url -}}
{{- $host := "" -}}
{{- $port := 6379 -}}
{{- if $url -}}
{{- $parsed := urlParse $url -}}
{{- $host = $parsed.hostname | default "" -}}
{{- with regexFind ":[0-9]+$" $parsed.host -}}
{{- $port = trimPrefix ":" . | int -}}
{{- end -}}
{{- end -}}
{{- if not (kindIs "invalid" $net.port) -}}
{{- $port = int $net.port -}}
{{- end -}}
{{- $to := list -}}
{{- $namespace := $net.namespace -}}
{{- if and (not $namespace) $host (not $net.cidrs) -}}
{{- $labels := splitList "." $host -}}
{{- if regexMatch "^[0-9.]+$|:" $host -}}
{{- $to = append $to (dict "ipBlock" (dict "cidr" (printf "%s/%s" $host (ternary "128" "32" (contains ":" $host))))) -}}
{{- else if eq (len $labels) 1 -}}
{{- $namespace = .Release.Namespace -}}
{{- else if and (ge (len $labels) 3) (eq (index $labels 2) "svc") -}}
{{- $namespace = index $labels 1 -}}
{{- end -}}
{{- end -}}
{{- range $net.cidrs -}}
{{- $to = append $to (dict "ipBlock" (dict "cidr" .)) -}}
{{- end -}}
{{- if and $namespace (not $net.cidrs) -}}
{{- $peer := dict "namespaceSelector" (dict "matchLabels" (dict "kubernetes.io/metadata.name" $namespace)) -}}
{{- with $net.podLabels -}}
{{- $_ := set $peer "podSelector" (dict "matchLabels" .) -}}
{{- end -}}
{{- $to = append $to $peer -}}
{{- end -}}
{{- if $to -}}
{{- dict "to" $to "port" $port "host" $host | toJson -}}
{{- else -}}
{{- dict "host" $host | toJson -}}
{{- end -}}
{{- end -}}
