-- PostgreSQL's twin of 003_account_leftovers.sql: the same trigger as a trigger function.
CREATE FUNCTION files_account_leftovers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM favorites WHERE user_id = OLD.id;
  DELETE FROM folder_prefs WHERE user_id = OLD.id;
  DELETE FROM recent_destinations WHERE user_id = OLD.id;
  DELETE FROM user_volumes WHERE user_id = OLD.id;
  UPDATE personal_folders SET user_id = 'deleted:' || OLD.id WHERE user_id = OLD.id;
  RETURN OLD;
END
$$;
CREATE TRIGGER files_account_leftovers AFTER DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION files_account_leftovers();
