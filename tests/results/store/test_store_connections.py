"""One account's readers calling the store at once reuse their connections instead of opening one per call."""

import logging
from concurrent.futures import ThreadPoolExecutor

from campaigns.store import progress
from results.store import access
from results.store import s3 as store_module
from results.store.downloads import per_person


def test_the_pool_holds_every_background_reader_of_one_account():
    readers = (progress._pool._max_workers + progress._refresh_pool._max_workers
               + access._probes._max_workers + access._proofs._pool._max_workers + per_person())
    assert store_module.MAX_CONNECTIONS >= readers


def test_thirty_calls_at_once_keep_their_connections(store, store_prefix, caplog):
    key = store_prefix + "vol/progress.json"
    store.put(key, b'{"stage": "done"}', "application/json")
    account = store.accounts["full"]
    store_module.forget_clients()
    caplog.set_level(logging.WARNING, logger="urllib3.connectionpool")

    def read(_):
        return store_module.head_object(account.username, account.password, key)

    with ThreadPoolExecutor(max_workers=30) as pool:
        answers = list(pool.map(read, range(90)))
    assert len(answers) == 90
    assert not [r for r in caplog.records if "pool is full" in r.getMessage()]
