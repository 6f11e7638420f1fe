{{/*
Values of htrflow-batch's chart that this chart does not read as they are. values.schema.json admits
each of them (marked "deprecated") only so that this list can refuse it with what to write instead:
an operator who starts from an htrflow-batch values file gets one sentence per key, all at once.
Values read as they are (resultsUrl, s3.existingSecret, results.sessionSecret, results.sessionHours,
results.keyDerivation, network.enabled, network.s3Cidrs, network.s3Ports, network.apiServer.cidrs,
network.apiServer.port, web.service.type, web.nodePort, web.resources, web.ingress.*) are not here.
tests/chart/test_htrflow_batch_values.py keeps this list and the schema's admitted keys equal.
*/}}
{{- define "htrbrowser.foreignKeys" -}}
- key: publicResultsBase
  instead: "write resultsUrl: <the site's https address>/results (the results proxy's base) instead."
- key: hfToken
  instead: "remove it: the token is the warm-up Job's, and this chart runs no Job."
- key: modelCache
  instead: "remove it: the model cache is htrflow-batch's, and this chart mounts none."
- key: queue
  instead: "remove it: the queues are htrflow-batch's; this chart reads every LocalQueue and ClusterQueue it can see."
- key: apply
  instead: "remove it: campaigns are applied by htrflow-batch's tooling, never by this chart."
- key: security
  instead: "remove it: htrflow-batch's Kyverno policies apply to this chart's pods as they are; list this chart's image repository in security.allowedImageRepos of the htrflow-batch release and pin image.digest here (README, \"Beside htrflow-batch\")."
- key: web.image
  instead: "write image.repository and image.digest (sha256:…) instead: this chart's image is htrbrowser, not htrflow-web."
- key: web.internalResultsBase
  instead: "remove it: the pods read the store at S3_ENDPOINT from s3.existingSecret."
- key: results.replicas
  instead: "write replicas instead: one Deployment serves the pages and the results proxy."
- key: results.resources
  instead: "write web.resources instead: one container serves the pages and the results proxy."
- key: network.apiServer.cidr
  instead: "write network.apiServer.cidrs: [<the same address>] instead (a list: every API server of the control plane)."
- key: network.web
  instead: "write network.ingressFrom and network.ingressCidrs instead of network.web.ingressFrom and network.web.ingressCidrs; network.web.allowPublicIngress has no counterpart (list the client ranges)."
- key: network.defaultDeny
  instead: "remove it: this chart's NetworkPolicy selects its own pods only; htrflow-batch's default deny stays in force."
- key: network.iiifCidrs
  instead: "remove it: the site never fetches page images; browsers do."
- key: network.clusterCidrs
  instead: "remove it: this chart grants no public egress to carve ranges out of."
- key: network.nodeCidrs
  instead: "remove it: this chart grants no public egress to carve ranges out of."
- key: network.privateCidrs
  instead: "remove it: this chart grants no public egress to carve ranges out of."
- key: network.s3InNamespace
  instead: "write the store's addresses in network.s3Cidrs (an in-namespace RustFS: network.extraEgress with its pod labels) instead."
{{- end -}}

{{/* One sentence per foreign key the values carry. */}}
{{- define "htrbrowser.foreignKeyProblems" -}}
{{- $problems := list -}}
{{- range $foreign := (include "htrbrowser.foreignKeys" . | fromYamlArray) -}}
{{- $node := $.Values -}}
{{- $present := true -}}
{{- range $part := splitList "." $foreign.key -}}
{{- if and $present (kindIs "map" $node) (hasKey $node $part) -}}
{{- $node = index $node $part -}}
{{- else -}}
{{- $present = false -}}
{{- end -}}
{{- end -}}
{{- if $present -}}
{{- $problems = append $problems (printf "%s is htrflow-batch's value: %s" $foreign.key $foreign.instead) -}}
{{- end -}}
{{- end -}}
{{- toJson $problems -}}
{{- end -}}
