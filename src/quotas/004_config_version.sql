-- The quotas are part of the configuration every instance caches (cluster/config-cache.ts): on
-- PostgreSQL a quota written moves the configuration's version (004_config_version.pg.sql). On
-- the embedded database one process writes, and drops its own cache: nothing to add here.
SELECT 1;
