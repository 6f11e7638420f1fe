"""Where a campaign's pods publish (contracts §8): the wrapper's ``RESULTS_URL`` (older renders
``PUBLIC_RESULTS_BASE``; empty = the chart's default) against this site's results URL. Runs published
under another address are refused by the log and ALTO viewers, so say so before anyone clicks.
Only trailing slashes are normalised away; anything else that differs is a different address.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from campaigns.domain.diagnosis import codes
from campaigns.domain.diagnosis.commands import APPLY, change
from campaigns.domain.diagnosis.objects import as_str, container, env_entry, labels_of, name_of, ref, template_spec
from campaigns.models import bounded
from campaigns.models.findings import OPERATOR, Fact, Finding, Subject, values
from core.contract import LABEL_CAMPAIGN

RESULTS_ENV = ("RESULTS_URL", "PUBLIC_RESULTS_BASE")  # newest name first
ADDRESS_LIMIT = 2000


def _same(one: str, other: str) -> bool:
    return one.rstrip("/") == other.rstrip("/")


def _shown(address: str) -> str:
    """The address as a page may show it: no user, password, query or fragment."""
    try:
        parts = urlsplit(address)
    except ValueError:
        return ""
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return bounded(urlunsplit((parts.scheme, host, parts.path, "", "")), ADDRESS_LIMIT)


def results_address(namespace: str, job: dict, site_url: str) -> Finding | None:
    """``results.other_address`` when the Job's pods publish under another results address than the
    site's; None when they agree, when the Job leaves it to the chart's default, or nothing is known."""
    wrapper = container(template_spec(job), "wrapper")
    for env_name in RESULTS_ENV:
        entry = env_entry(wrapper, env_name)
        address = as_str(entry.get("value")) if entry else ""
        if not address:
            continue
        if not site_url or _same(address, site_url):
            return None
        name = name_of(job)
        return Finding(
            code=codes.RESULTS_OTHER_ADDRESS,
            subject=Subject("campaign", namespace, campaign=as_str(labels_of(job).get(LABEL_CAMPAIGN)) or name),
            actor=OPERATOR,
            values=values(job=name, env=env_name, campaign_address=_shown(address), site_address=_shown(site_url)),
            evidence=(
                Fact(ref("Job", name), f"spec.template.spec.containers[wrapper].env[{env_name}]", _shown(address)),
                Fact("Site/htrbrowser", "resultsUrl", _shown(site_url)),
            ),
            fix=(
                change("converter.results_url", file="converter.yaml", key="results_url", value=_shown(site_url)),
                APPLY,
            ),
        )
    return None
