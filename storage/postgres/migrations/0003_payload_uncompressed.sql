-- Batch payloads are TOASTed uncompressed: a producer compresses its batches itself when it
-- wants to, and trying pglz on every payload (then storing it as it was when the attempt
-- fails, as it does on compressed or random data) cost PostgreSQL about half of its CPU per
-- MB written (bench/README.md, PostgreSQL engine). Applies to rows written from now on.
ALTER TABLE batches ALTER COLUMN payload SET STORAGE EXTERNAL;
