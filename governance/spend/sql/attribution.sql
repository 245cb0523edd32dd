-- Who spent what: cost and credits over a window, by project, service, SKU and the cost labels.
--
-- mlgov `spend` runs this with:
--   {table}           the standard (or detailed) export table
--   @partition_start  TIMESTAMP  first partition read: the window start minus 1 day
--   @partition_end    TIMESTAMP  last partition read (exclusive): window end plus 7 days, so
--                                rows filed up to a week late still count (what Google
--                                documents about partitions and late rows: window.py)
--   @start, @end      TIMESTAMP  the window on usage_start_time, [start, end)
--   @projects         ARRAY<STRING>  the projects that count
--   @team_key, @cost_center_key, @workload_key, @env_key  STRING  the label keys
-- A label the row does not carry reads as '' (spend nobody owns). Net cost is
-- SUM(cost) + SUM(credits): credits are negative amounts. Rows are first summed per distinct
-- set of labels, so the label values are looked up once per set rather than once per row
-- (the export has one row per SKU, resource and hour; a project has few label sets).
WITH by_label_set AS (
  SELECT
    project.id AS project_id,
    service.description AS service,
    sku.description AS sku,
    currency,
    TO_JSON_STRING(labels) AS label_set,
    ANY_VALUE(labels) AS labels,
    SUM(cost) AS cost,
    SUM(IFNULL((SELECT SUM(c.amount) FROM UNNEST(credits) AS c), 0)) AS credits,
    COUNT(*) AS row_count
  FROM {table}
  WHERE _PARTITIONTIME >= @partition_start
    AND _PARTITIONTIME < @partition_end
    AND usage_start_time >= @start
    AND usage_start_time < @end
    AND project.id IN UNNEST(@projects)
  GROUP BY project_id, service, sku, currency, label_set
)
SELECT
  project_id,
  service,
  sku,
  IFNULL((SELECT l.value FROM UNNEST(labels) AS l WHERE l.key = @team_key LIMIT 1), '') AS team,
  IFNULL((SELECT l.value FROM UNNEST(labels) AS l WHERE l.key = @cost_center_key LIMIT 1), '')
    AS cost_center,
  IFNULL((SELECT l.value FROM UNNEST(labels) AS l WHERE l.key = @workload_key LIMIT 1), '')
    AS workload,
  IFNULL((SELECT l.value FROM UNNEST(labels) AS l WHERE l.key = @env_key LIMIT 1), '') AS env,
  currency,
  SUM(cost) AS cost,
  SUM(credits) AS credits,
  SUM(row_count) AS row_count
FROM by_label_set
GROUP BY project_id, service, sku, team, cost_center, workload, env, currency
