"""Moved: the samples are ``devstack.kube_samples``, built by the one factory ``devstack.scene_kube``.

Kept only so tests written against the old path keep working while they move; import
``from devstack import kube_samples as o`` instead. Nothing is defined here.
"""

from devstack.kube_samples import *  # noqa: F403
from devstack.kube_samples import __all__  # noqa: F401
