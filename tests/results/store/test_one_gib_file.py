"""A 1 GiB result file streams through the results proxy with flat memory.

The peak memory the proxy's Python code allocates while streaming (tracemalloc) must stay
far below the object's size; every 64 MiB a slice is checked byte for byte. The throughput is
printed (see it with `pytest -s`), not asserted.
"""

import json
import time
import tracemalloc

import pytest

from devstack.store import StoreDouble, large_object_bytes
from results.accounts import ratelimit, session
from results.store import s3 as store

SIZE = 1024 * 1024 * 1024


@pytest.fixture(scope="module")
def big_store():
    with StoreDouble() as double:
        key = f"{double.namespace}/bench/large.bin"
        seconds = double.put_large(key, SIZE)
        print(f"\nput_large: {SIZE / 2**20:.0f} MiB written in {seconds:.1f} s")
        yield double, key


def test_one_gib_streams_with_flat_memory(big_store, client, settings, tmp_path):
    double, key = big_store
    key_file = tmp_path / "key"
    key_file.write_text(session.new_key_text())
    settings.HTRFLOW_SESSION_KEY_FILE = str(key_file)
    settings.S3_ENDPOINT, settings.S3_BUCKET = double.endpoint, double.bucket
    settings.HTRFLOW_RESULTS_NAMESPACE, settings.HTRFLOW_KEY_DERIVATION = double.namespace, "none"
    settings.HTRFLOW_S3_TIMEOUT = 30
    store.forget_clients()
    ratelimit.reset()
    account = double.accounts["full"]
    login = client.post(
        "/results/_login",
        data=json.dumps({"username": account.username, "password": account.password}),
        content_type="application/json",
        HTTP_ORIGIN="http://testserver",
    )
    assert login.status_code == 204

    tracemalloc.start()
    began = time.monotonic()
    response = client.get(f"/results/{key}")
    total, checked = 0, 0
    for chunk in response.streaming_content:
        if total % (64 * 1024 * 1024) < len(chunk):
            assert chunk == large_object_bytes(total, len(chunk))
            checked += 1
        total += len(chunk)
    seconds = time.monotonic() - began
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    assert total == SIZE
    print(
        f"streamed {total / 2**20:.0f} MiB in {seconds:.1f} s ({total / 2**20 / seconds:.0f} MiB/s); "
        f"peak Python allocation while streaming: {peak / 2**20:.2f} MiB; {checked} slices checked"
    )
    assert peak < 8 * 1024 * 1024
