-- The version of what every instance caches of the installation's configuration: the settings'
-- sections and the access model (rules, groups, members). On PostgreSQL each statement that
-- changes a row of those tables moves it up in its own transaction and tells every instance
-- (NOTIFY on the change stream's channel, delivered at commit; 004_config_version.pg.sql): a
-- request reads this one row before it trusts its instance's cache (cluster/config-cache.ts). On
-- the embedded database one process writes and the table stays empty.
CREATE TABLE cluster_config_version (
  name TEXT PRIMARY KEY,
  version BIGINT NOT NULL
);
