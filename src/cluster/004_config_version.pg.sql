-- PostgreSQL's twin of 004_config_version.sql: the table, and the triggers that move its one row
-- ('config') up and NOTIFY the change stream's channel (`burrow_changes`, cluster/stream.ts) for
-- every row of the settings or the access model written or removed — in the writer's transaction,
-- so the new version and the notification are seen exactly when the change is. Account deletion
-- reaches access_rules and access_group_members through their triggers and cascades, and so
-- moves the version too; a statement that changes no row moves nothing. The payload names nothing
-- but "the configuration changed" (PostgreSQL sends one per transaction).
CREATE TABLE cluster_config_version (
  name TEXT PRIMARY KEY,
  version BIGINT NOT NULL
);

CREATE FUNCTION cluster_config_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO cluster_config_version (name, version) VALUES ('config', 1)
    ON CONFLICT (name) DO UPDATE SET version = cluster_config_version.version + 1;
  PERFORM pg_notify('burrow_changes', '{"s":"config"}');
  RETURN NULL;
END
$$;

CREATE TRIGGER settings_config_changed AFTER INSERT OR UPDATE OR DELETE ON settings
  FOR EACH ROW EXECUTE FUNCTION cluster_config_changed();
CREATE TRIGGER access_rules_config_changed AFTER INSERT OR UPDATE OR DELETE ON access_rules
  FOR EACH ROW EXECUTE FUNCTION cluster_config_changed();
CREATE TRIGGER access_groups_config_changed AFTER INSERT OR UPDATE OR DELETE ON access_groups
  FOR EACH ROW EXECUTE FUNCTION cluster_config_changed();
CREATE TRIGGER access_group_members_config_changed AFTER INSERT OR UPDATE OR DELETE ON access_group_members
  FOR EACH ROW EXECUTE FUNCTION cluster_config_changed();
