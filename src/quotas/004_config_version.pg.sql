-- PostgreSQL's twin of 004_config_version.sql: a row of account_quotas, volume_quotas or
-- group_quotas written or removed moves the configuration's version and tells every instance, in
-- the writer's transaction, as the settings and the access model do
-- (cluster/004_config_version.pg.sql, which runs before this file: same number, "cluster" first).
CREATE TRIGGER account_quotas_config_changed AFTER INSERT OR UPDATE OR DELETE ON account_quotas
  FOR EACH ROW EXECUTE FUNCTION cluster_config_changed();
CREATE TRIGGER volume_quotas_config_changed AFTER INSERT OR UPDATE OR DELETE ON volume_quotas
  FOR EACH ROW EXECUTE FUNCTION cluster_config_changed();
CREATE TRIGGER group_quotas_config_changed AFTER INSERT OR UPDATE OR DELETE ON group_quotas
  FOR EACH ROW EXECUTE FUNCTION cluster_config_changed();
