"""The job queue: a table, leases, retries with backoff, recovery; run in-process or by `botyard worker`."""
