-- One cross-process coherence mechanism: cache_epoch (0011), moved by triggers on every cached
-- table, so no writer can forget it. coherence_versions (0009) was bumped by hand by two writers
-- and read by nothing; it is gone (docs/decisions.md, issue 16).
DROP TABLE IF EXISTS "coherence_versions";
