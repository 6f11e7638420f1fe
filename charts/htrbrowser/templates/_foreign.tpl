{{/*
Values of htrflow-batch's chart that this chart reads differently. values.schema.json admits each of
them (marked "deprecated") so that an htrflow-batch values file installs as it is: NOTES.txt then says,
one sentence per key carried, what this chart made of it (`read`). Only what cannot work is refused
(templates/_validate.tpl: network.s3InNamespace true, network.web.allowPublicIngress true).
Values read as they are (resultsUrl, s3.existingSecret, results.sessionSecret, results.sessionHours,
results.keyDerivation, network.enabled, network.s3Cidrs, network.s3Ports, network.apiServer.cidrs,
network.apiServer.port, web.service.type, web.ingress.*) are not here; web.nodePort, web.resources
and web.https are read with this chart's own limits (templates/_helpers.tpl).
tests/chart/test_htrflow_batch_values.py keeps this list and the schema's admitted keys equal.
*/}}
{{- define "htrbrowser.foreignKeys" -}}
- key: publicResultsBase
  read: "not read: the results proxy's browser-facing base is resultsUrl (<the site's https address>/results)."
- key: hfToken
  read: "not read: the token is the warm-up Job's, and this chart runs no Job."
- key: modelCache
  read: "not read: the model cache is htrflow-batch's, and this chart mounts none."
- key: queue
  read: "not read: the queues are htrflow-batch's; this chart reads every LocalQueue and ClusterQueue it can see."
- key: apply
  read: "not read: campaigns are applied by htrflow-batch's tooling, never by this chart."
- key: security
  read: "not read: htrflow-batch's Kyverno policies apply to this chart's pods as they are; list this chart's image repository in security.allowedImageRepos of the htrflow-batch release and pin image.digest here (docs/installing.md, \"Beside htrflow-batch\")."
- key: web.image
  read: "not read: it names htrflow-web's image; this chart runs image.repository at image.tag or image.digest."
- key: web.internalResultsBase
  read: "not read: the pods read the store at S3_ENDPOINT from s3.existingSecret."
- key: results.replicas
  read: "not read: replicas counts the pods of the one Deployment that serves the pages and the results proxy (more than one needs redis.existingSecret, a redis the pods share)."
- key: results.resources
  read: "not read: web.resources sizes the one container that serves the pages and the results proxy."
- key: network.apiServer.cidr
  read: "read as one more address of network.apiServer.cidrs."
- key: network.web
  read: "its ingressFrom and ingressCidrs are read where network.ingressFrom and network.ingressCidrs are empty (allowPublicIngress has no counterpart: true is refused)."
- key: network.defaultDeny
  read: "not read: this chart's NetworkPolicy selects its own pods only; htrflow-batch's default deny stays in force."
- key: network.iiifCidrs
  read: "not read: the site never fetches page images; browsers do."
- key: network.clusterCidrs
  read: "not read: this chart grants no public egress to carve ranges out of."
- key: network.nodeCidrs
  read: "not read: this chart grants no public egress to carve ranges out of."
- key: network.privateCidrs
  read: "not read: this chart grants no public egress to carve ranges out of."
- key: network.s3InNamespace
  read: "not read: the store is reached at network.s3Cidrs (true, a store inside the namespace, is refused)."
{{- end -}}

{{/* One sentence per foreign key the values carry, for NOTES.txt. */}}
{{- define "htrbrowser.foreignKeyWarnings" -}}
{{- $warnings := list -}}
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
{{- $warnings = append $warnings (printf "%s is htrflow-batch's value, %s" $foreign.key $foreign.read) -}}
{{- end -}}
{{- end -}}
{{- toJson $warnings -}}
{{- end -}}
