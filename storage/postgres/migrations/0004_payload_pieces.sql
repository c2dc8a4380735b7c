-- A batch's payload is stored in pieces of at most storage/postgres/pieces.py's PIECE_BYTES,
-- one row each (numbered from 0, every row repeating the batch's header columns), kept in
-- the heap page itself rather than TOASTed: a 1 MB batch was about 500 TOAST chunk rows,
-- each with its TOAST index entry and two WAL records; in pieces it is about 130 rows, and
-- PostgreSQL's CPU per MB written fell by about a third (bench/README.md). A batch is the
-- concatenation of its pieces in order; rows written before this migration are a batch
-- each (piece 0). Every batch has a piece 0, so the key still refuses a second batch at an
-- offset already taken.
ALTER TABLE batches ADD COLUMN piece integer NOT NULL DEFAULT 0;
ALTER TABLE batches DROP CONSTRAINT batches_pkey, ADD PRIMARY KEY (topic_id, partition, base_offset, piece);
-- A row of one piece (header columns and PIECE_BYTES of payload) stays in its heap page.
ALTER TABLE batches SET (toast_tuple_target = 8160);
