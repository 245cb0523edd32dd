-- Is the Cloud Billing export flowing? One row per project in the recent partitions.
--
-- mlgov `spend` runs this with:
--   {table}           the standard export table, e.g.
--                     `acme-ml-dev.billing_export.gcp_billing_export_v1_01D4EE_079462_DFD6EC`
--   @partition_start  TIMESTAMP  first partition read (_PARTITIONTIME >=)
--   @partition_end    TIMESTAMP  partitions before this one
-- The newest export_time over all projects says when the export last wrote; a project that is
-- missing here has had no cost exported recently (not linked to this billing account, or new).
SELECT
  project.id AS project_id,
  MAX(export_time) AS latest_export_time,
  COUNT(*) AS row_count
FROM {table}
WHERE _PARTITIONTIME >= @partition_start
  AND _PARTITIONTIME < @partition_end
GROUP BY project_id
