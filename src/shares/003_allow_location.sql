-- Whether a link's holder may see where its photos were taken (EXIF GPS). Off: the bytes a link
-- serves have the location taken out (metadata/location.ts). Links made before keep it off.
ALTER TABLE shares ADD COLUMN allow_location INTEGER NOT NULL DEFAULT 0;
