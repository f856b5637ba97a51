-- What a resumable upload does when its name is taken (Upload-Metadata `conflict`: rename,
-- skip, replace), and what became of it once placed (placed, renamed, replaced, skipped) with
-- where a replaced file went (JSON: versionId or trashId), answered on every HEAD after.
ALTER TABLE uploads ADD COLUMN conflict TEXT NOT NULL DEFAULT 'rename';
ALTER TABLE uploads ADD COLUMN outcome TEXT;
ALTER TABLE uploads ADD COLUMN displaced TEXT;
