-- Until when a link's owner has been told of its downloads (holder.ts: one message per link every
-- ten minutes, the next carrying the count of all). A column, not one process's memory, so that
-- through any instance of a cluster the owner is told once (issue 31). An ISO string: it compares
-- in order as text in both engines.
ALTER TABLE shares ADD COLUMN told_until TEXT;
