-- Whether a link's holder may have Burrow convert a video their browser cannot play (ffmpeg,
-- remuxed or transcoded: it costs the server a core). Off: such a video is offered as a download
-- only. Links made before keep it off.
ALTER TABLE shares ADD COLUMN allow_transcode INTEGER NOT NULL DEFAULT 0;
