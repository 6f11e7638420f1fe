"""Local stand-ins for a laptop and for tests.

A Kubernetes API double, an S3 store with accounts, a demo scene and a
simulator that moves the scene forward.
"""
