-- A link's download limit (1: a one-time link): every byte its holder takes (a download, a
-- zip, a raw or inline view, a screen-sized preview, the editor's read) counts one in
-- `download_count`, claimed before the bytes are sent; past it the link answers like an
-- expired one. NULL: no limit.
ALTER TABLE shares ADD COLUMN max_downloads INTEGER;
