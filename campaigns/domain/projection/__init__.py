"""Pure projection: a namespace :class:`Snapshot` of Kubernetes objects -> :class:`Campaign` values.

No I/O and no Django. Every input is a plain dict as the API returns it; any field may be missing
or of an unexpected type, and the answer is still a Campaign (defensive reads throughout).
Conditions are always looked up by ``type``, never by position.

One module per concern; this package re-exports the names the rest of the project uses, so
``from campaigns.domain.projection import project`` keeps working.
"""

from campaigns.domain.projection.entry_points import project, project_one
from campaigns.domain.projection.grouping import campaign_key
from campaigns.domain.projection.incremental import Projection, project_again
from campaigns.domain.projection.ordering import sort_campaigns
from campaigns.domain.projection.pipeline import pipeline_steps
from campaigns.domain.projection.quantities import format_quantity, parse_quantity
from campaigns.domain.projection.readers import condition, condition_true
from campaigns.domain.projection.reasons import classify_text, reason_from_pod
from campaigns.domain.projection.record_updates import merge_status_record, status_record_update, status_record_updates
from campaigns.domain.projection.records import record_reason
from campaigns.domain.projection.volumes import VolumeLine, parse_volumes_txt

__all__ = [
    "Projection",
    "VolumeLine",
    "campaign_key",
    "classify_text",
    "condition",
    "condition_true",
    "format_quantity",
    "merge_status_record",
    "parse_quantity",
    "parse_volumes_txt",
    "pipeline_steps",
    "project",
    "project_again",
    "project_one",
    "reason_from_pod",
    "record_reason",
    "sort_campaigns",
    "status_record_update",
    "status_record_updates",
]
