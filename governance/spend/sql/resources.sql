-- What each billed resource cost over a window, from the detailed (resource-level) export.
--
-- mlgov `spend` runs this with:
--   {table}           the detailed export table, e.g.
--                     `acme-ml-dev.billing_export.gcp_billing_export_resource_v1_01D4EE_079462_DFD6EC`
--   @partition_start, @partition_end, @start, @end, @projects  as in attribution.sql
--   @cluster_key, @node_pool_key  STRING  the labels GKE puts on its node VMs
--                                 (goog-k8s-cluster-name, goog-k8s-node-pool-name), which the
--                                 detailed export has in `labels`, not `system_labels`
-- net_cost is in the billing account's currency; net_cost_usd divides by
-- currency_conversion_rate, "the exchange rate from US dollars to the local currency" (rows
-- are summed per rate first, which is exact). As in attribution.sql, rows are summed per label
-- set before the labels are read. resource.name is the user's name, for VMs written as
-- projects/<number>/instances/<name>; join.py compares its last segment. Source of all three:
-- https://cloud.google.com/billing/docs/how-to/export-data-bigquery-tables/detailed-usage
WITH by_label_set AS (
  SELECT
    project.id AS project_id,
    service.description AS service,
    resource.name AS resource_name,
    resource.global_name AS resource_global_name,
    TO_JSON_STRING(labels) AS label_set,
    ANY_VALUE(labels) AS labels,
    currency_conversion_rate,
    SUM(cost) + SUM(IFNULL((SELECT SUM(c.amount) FROM UNNEST(credits) AS c), 0)) AS net_cost
  FROM {table}
  WHERE _PARTITIONTIME >= @partition_start
    AND _PARTITIONTIME < @partition_end
    AND usage_start_time >= @start
    AND usage_start_time < @end
    AND project.id IN UNNEST(@projects)
  GROUP BY
    project_id, service, resource_name, resource_global_name, label_set, currency_conversion_rate
)
SELECT
  project_id,
  service,
  resource_name,
  resource_global_name,
  IFNULL((SELECT l.value FROM UNNEST(labels) AS l WHERE l.key = @cluster_key LIMIT 1), '')
    AS k8s_cluster,
  IFNULL((SELECT l.value FROM UNNEST(labels) AS l WHERE l.key = @node_pool_key LIMIT 1), '')
    AS k8s_node_pool,
  SUM(net_cost) AS net_cost,
  SUM(net_cost / IFNULL(NULLIF(currency_conversion_rate, 0), 1)) AS net_cost_usd
FROM by_label_set
GROUP BY project_id, service, resource_name, resource_global_name, k8s_cluster, k8s_node_pool
