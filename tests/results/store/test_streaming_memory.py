"""A large file streams through the proxy with flat memory (the full 1 GiB run is in benchmarks/)."""

import tracemalloc

from devstack.store import large_object_bytes

SIZE = 48 * 1024 * 1024


def stream_and_measure(client, path):
    """Stream the answer to the end, checking bytes as they pass; returns (bytes, peak traced bytes)."""
    tracemalloc.start()
    try:
        response = client.get(path)
        assert response.status_code == 200
        total = 0
        for chunk in response.streaming_content:
            if total % (8 * 1024 * 1024) < len(chunk):
                assert chunk == large_object_bytes(total, len(chunk))
            total += len(chunk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return total, peak


def test_a_large_object_streams_with_memory_far_below_its_size(results_client, store, store_prefix):
    key = store_prefix + "large.bin"
    store.put_large(key, SIZE)
    total, peak = stream_and_measure(results_client, f"/results/{key}")
    assert total == SIZE
    # Constant memory: a few chunks and the client's own buffers, nowhere near the object's 48 MiB.
    assert peak < 4 * 1024 * 1024, f"peak {peak} bytes while streaming {SIZE}"
