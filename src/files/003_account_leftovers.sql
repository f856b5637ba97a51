-- When an account is deleted, what it kept by path goes with it: favourites, per-folder view
-- preferences, recent destinations and assigned volumes. A trigger rather than a foreign key,
-- so AUTH_MODE=disabled's 'local' caller (no users row) can keep such rows.
-- The personal-folder row is not dropped but handed to a tombstone owner: the folder name stays
-- claimed (a new account of the same name never inherits the old files) and the folder stays
-- out of every other account's reach.
CREATE TRIGGER files_account_leftovers AFTER DELETE ON users
BEGIN
  DELETE FROM favorites WHERE user_id = OLD.id;
  DELETE FROM folder_prefs WHERE user_id = OLD.id;
  DELETE FROM recent_destinations WHERE user_id = OLD.id;
  DELETE FROM user_volumes WHERE user_id = OLD.id;
  UPDATE personal_folders SET user_id = 'deleted:' || OLD.id WHERE user_id = OLD.id;
END;
