"""The S3 store double answers real boto3 requests the way a private bucket with per-account rights does."""

import dataclasses
import socket

import pytest
from botocore.exceptions import ClientError

from devstack.store import Account, StoreDouble, StoreError, hcp_keys, large_object_bytes


def error_code(call) -> tuple[int, str]:
    """Run a boto3 call that must fail; return (HTTP status, S3 error code)."""
    with pytest.raises(ClientError) as caught:
        call()
    response = caught.value.response
    return response["ResponseMetadata"]["HTTPStatusCode"], response["Error"].get("Code", "")


def login_proof(store, account: Account):
    """The results proxy's login check: a ranged GET of the key '<namespace>/'."""
    return error_code(
        lambda: store.client(account).get_object(Bucket=store.bucket, Key=f"{store.namespace}/", Range="bytes=0-0")
    )


@pytest.fixture
def page_key(store_double, store_prefix):
    key = f"{store_prefix}pipeline/volume/alto/0001.xml"
    store_double.put(key, b"<alto>first page</alto>", content_type="application/xml")
    return key


def test_full_account_reads_an_object(store_double, page_key):
    answer = store_double.client(store_double.accounts["full"]).get_object(Bucket=store_double.bucket, Key=page_key)

    assert answer["Body"].read() == b"<alto>first page</alto>"
    assert answer["ContentType"] == "application/xml"


def test_ranged_read_answers_206_with_the_slice(store_double, page_key):
    client = store_double.client(store_double.accounts["full"])

    answer = client.get_object(Bucket=store_double.bucket, Key=page_key, Range="bytes=1-4")

    assert answer["ResponseMetadata"]["HTTPStatusCode"] == 206
    assert answer["ContentRange"] == "bytes 1-4/23"
    assert answer["Body"].read() == b"alto"


def test_limited_account_is_denied_a_denied_volume_and_reads_the_rest(store_double, store_prefix):
    denied_key = f"{store_prefix}swe-lines-v2/C0074520/progress.json"
    allowed_key = f"{store_prefix}swe-lines-v2/C0074521/progress.json"
    store_double.put(denied_key, b"{}")
    store_double.put(allowed_key, b'{"stage": "done"}')
    store_double.deny_limited(f"{store_prefix}swe-lines-v2/C0074520/")
    client = store_double.client(store_double.accounts["limited"])

    assert error_code(lambda: client.get_object(Bucket=store_double.bucket, Key=denied_key)) == (403, "AccessDenied")
    assert client.get_object(Bucket=store_double.bucket, Key=allowed_key)["Body"].read() == b'{"stage": "done"}'


def test_a_denied_run_log_key_is_denied_alone(store_double, store_prefix):
    denied_log = f"{store_prefix}status/logs/swe-lines-v2/C0074520.txt"
    other_log = f"{store_prefix}status/logs/swe-lines-v2/C0074522.txt"
    store_double.put(denied_log, "secret log\n")
    store_double.put(other_log, "open log\n")
    store_double.deny_limited(denied_log)
    client = store_double.client(store_double.accounts["limited"])

    assert error_code(lambda: client.get_object(Bucket=store_double.bucket, Key=denied_log)) == (403, "AccessDenied")
    assert client.get_object(Bucket=store_double.bucket, Key=other_log)["Body"].read() == b"open log\n"


def test_full_account_is_not_affected_by_the_limited_deny_list(store_double, store_prefix):
    key = f"{store_prefix}swe-lines-v2/C0074523/progress.json"
    store_double.put(key, b"{}")
    store_double.deny_limited(f"{store_prefix}swe-lines-v2/C0074523/")

    answer = store_double.client(store_double.accounts["full"]).get_object(Bucket=store_double.bucket, Key=key)

    assert answer["Body"].read() == b"{}"


def test_outsider_is_denied_everything(store_double, page_key):
    client = store_double.client(store_double.accounts["outsider"])

    assert error_code(lambda: client.get_object(Bucket=store_double.bucket, Key=page_key)) == (403, "AccessDenied")


def test_readers_cannot_read_outside_the_namespace(store_double, store_prefix):
    key = f"elsewhere/{store_prefix}private.txt"
    store_double.put(key, b"not for readers")
    client = store_double.client(store_double.accounts["full"])

    assert error_code(lambda: client.get_object(Bucket=store_double.bucket, Key=key)) == (403, "AccessDenied")


def test_readers_cannot_write(store_double, store_prefix):
    client = store_double.client(store_double.accounts["full"])

    code = error_code(lambda: client.put_object(Bucket=store_double.bucket, Key=f"{store_prefix}x", Body=b"x"))

    assert code == (403, "AccessDenied")


def test_wrong_secret_is_a_signature_mismatch(store_double):
    wrong = dataclasses.replace(store_double.accounts["full"], secret_key="not-the-password")

    assert login_proof(store_double, wrong) == (403, "SignatureDoesNotMatch")


def test_unknown_access_key_is_invalid(store_double):
    stranger = dataclasses.replace(store_double.accounts["full"], access_key="nobody-we-know")

    assert login_proof(store_double, stranger) == (403, "InvalidAccessKeyId")


@pytest.mark.parametrize("family", ["accounts", "hcp_accounts"])
@pytest.mark.parametrize(
    ("name", "expected"),
    [("full", (404, "NoSuchKey")), ("limited", (404, "NoSuchKey")), ("outsider", (403, "AccessDenied"))],
)
def test_login_proof_answers_per_account(store_double, family, name, expected):
    assert login_proof(store_double, getattr(store_double, family)[name]) == expected


@pytest.mark.parametrize("name", ["full", "limited", "outsider"])
def test_hcp_identities_use_the_derived_keys(store_double, name):
    account = store_double.hcp_accounts[name]

    assert (account.access_key, account.secret_key) == hcp_keys(account.username, account.password)
    assert account.username != store_double.accounts[name].username


def test_hcp_key_derivation_is_base64_user_and_md5_password():
    assert hcp_keys("reader", "password") == ("cmVhZGVy", "5f4dcc3b5aa765d61d8327deb882cf99")


def test_hcp_identity_reads_like_its_none_twin(store_double, page_key):
    client = store_double.client(store_double.hcp_accounts["full"])

    assert client.get_object(Bucket=store_double.bucket, Key=page_key)["Body"].read() == b"<alto>first page</alto>"


def test_hcp_login_typed_as_none_keys_is_refused(store_double):
    hcp = store_double.hcp_accounts["full"]
    typed_raw = dataclasses.replace(hcp, access_key=hcp.username, secret_key=hcp.password)

    assert login_proof(store_double, typed_raw) == (403, "InvalidAccessKeyId")


def test_append_grows_an_object_and_creates_it_when_missing(store_double, store_prefix):
    key = f"{store_prefix}status/logs/p/v.txt"

    store_double.append(key, "first line\n")
    store_double.append(key, b"second line\n")

    assert store_double.get(key) == b"first line\nsecond line\n"


def test_put_many_writes_objects_a_reader_gets_with_their_type(store_double, store_prefix):
    objects = [(f"{store_prefix}v{n}/progress.json", f'{{"stage": "stream", "pages_done": {n}}}', "application/json")
               for n in range(3)]

    store_double.put_many(objects)

    reader = store_double.client(store_double.accounts["full"])
    answer = reader.get_object(Bucket=store_double.bucket, Key=f"{store_prefix}v2/progress.json")
    assert answer["Body"].read() == b'{"stage": "stream", "pages_done": 2}'
    assert answer["ContentType"] == "application/json"
    denied = store_double.client(store_double.accounts["outsider"])
    assert error_code(lambda: denied.get_object(Bucket=store_double.bucket, Key=objects[0][0]))[1] == "AccessDenied"


def test_delete_removes_an_object(store_double, store_prefix):
    key = f"{store_prefix}gone.txt"
    store_double.put(key, "here")

    store_double.delete(key)

    reader = store_double.client(store_double.accounts["full"])
    assert error_code(lambda: reader.get_object(Bucket=store_double.bucket, Key=key)) == (404, "NoSuchKey")


def test_put_large_writes_the_pattern_and_serves_ranges(store_double, store_prefix):
    key = f"{store_prefix}big.bin"
    size = 3 * 1024 * 1024 + 5

    store_double.put_large(key, size)

    reader = store_double.client(store_double.accounts["full"])
    head = reader.head_object(Bucket=store_double.bucket, Key=key)
    tail = reader.get_object(Bucket=store_double.bucket, Key=key, Range=f"bytes={size - 300}-")
    assert head["ContentLength"] == size
    assert tail["Body"].read() == large_object_bytes(size - 300, 300)


def test_put_large_through_multipart_matches_the_fast_path(store_double, store_prefix):
    key = f"{store_prefix}multipart.bin"
    size = 11 * 1024 * 1024 + 7

    store_double.put_large(key, size, via_api=True, part_size=5 * 1024 * 1024)

    assert store_double.get(key) == large_object_bytes(0, size)


def test_large_object_pattern_is_position_dependent():
    assert large_object_bytes(254, 4) == bytes([254, 255, 0, 1])
    assert large_object_bytes(0, 0) == b""


def test_deny_rejects_wildcards(store_double):
    with pytest.raises(ValueError):
        store_double.deny_limited(f"{store_double.namespace}/*")


def test_account_repr_hides_the_secrets(store_double):
    account = store_double.accounts["full"]

    assert account.password not in repr(account)
    assert store_double.hcp_accounts["full"].secret_key not in repr(store_double.hcp_accounts["full"])


def test_store_fixture_points_django_at_the_double(store):
    from django.conf import settings

    assert settings.S3_ENDPOINT == store.endpoint
    assert settings.S3_BUCKET == "htrflow-results"
    assert settings.HTRFLOW_KEY_DERIVATION == "none"
    assert settings.HTRFLOW_RESULTS_NAMESPACE == "htr-batch"


def test_a_second_double_runs_beside_the_first_and_stops_cleanly(store_double):
    second = StoreDouble(bucket="other-bucket", namespace="other-ns")
    with second:
        endpoint = second.endpoint
        second.put("other-ns/a.txt", "a")
        assert second.client(second.accounts["full"]).get_object(Bucket="other-bucket", Key="other-ns/a.txt")
        assert endpoint != store_double.endpoint
    port = int(endpoint.rsplit(":", 1)[1])

    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=2):
        pass
    with pytest.raises(StoreError):
        _ = second.endpoint


def test_a_port_in_use_is_reported_not_hung(store_double):
    busy_port = int(store_double.endpoint.rsplit(":", 1)[1])

    with pytest.raises(StoreError, match="did not start"):
        StoreDouble().start(port=busy_port)


def test_a_slowed_store_answers_every_request_late_and_at_once_again_after(store_double, page_key):
    import boto3
    from botocore.config import Config
    from botocore.exceptions import ReadTimeoutError

    full = store_double.accounts["full"]
    impatient = boto3.session.Session().client(
        "s3", endpoint_url=store_double.endpoint, region_name="us-east-1",
        aws_access_key_id=full.access_key, aws_secret_access_key=full.secret_key,
        config=Config(read_timeout=0.5, connect_timeout=5, retries={"total_max_attempts": 1}),
    )
    with store_double.slowed(2.0):
        assert store_double.delay_seconds == 2.0
        with pytest.raises(ReadTimeoutError):  # the connection is taken, the answer comes too late
            impatient.get_object(Bucket=store_double.bucket, Key=page_key)
    assert store_double.delay_seconds == 0
    assert impatient.get_object(Bucket=store_double.bucket, Key=page_key)["Body"].read() == b"<alto>first page</alto>"
    with pytest.raises(ValueError):
        store_double.slow(-1)
