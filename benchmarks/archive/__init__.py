"""The archive-scale benchmark (issue: forty campaigns, 200 000 volumes, a room full of people).

- `scene`: the archive, built into the devstack's Kubernetes double and S3 store (`realistic` adds
  what a real API server returns: defaulted pod specs and `managedFields`);
- `servers`: those stand-ins in a child process, behind counting forwarders (`tcpcount`);
- `app`: the product under gunicorn exactly as the Dockerfile runs it, and its CPU and memory;
- `tabs`: open list pages polling as a browser does, for today's page and the one-poll page;
- `figures`: the measurements, run by benchmarks/bench_archive.py (`make bench-archive`).
"""
