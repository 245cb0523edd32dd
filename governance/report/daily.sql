-- Spend per day, by service and by the `team` label: what `mlgov report` draws over the window.
--
-- mlgov `report` runs this with the same parameters as spend's attribution.sql:
--   {table}           the standard export table
--   @partition_start, @partition_end  TIMESTAMP  the partitions to read (window.py)
--   @start, @end      TIMESTAMP  the window on usage_start_time, [start, end)
--   @projects         ARRAY<STRING>  the projects that count
--   @team_key         STRING  the label key whose value names the team
-- Days are UTC days of usage_start_time. Net cost is SUM(cost) + SUM(credits) (credits are
-- negative). A row without the label has team ''.
SELECT
  DATE(usage_start_time) AS day,
  service.description AS service,
  IFNULL((SELECT l.value FROM UNNEST(labels) AS l WHERE l.key = @team_key LIMIT 1), '') AS team,
  currency,
  SUM(cost) + SUM(IFNULL((SELECT SUM(c.amount) FROM UNNEST(credits) AS c), 0)) AS net_cost
FROM {table}
WHERE _PARTITIONTIME >= @partition_start
  AND _PARTITIONTIME < @partition_end
  AND usage_start_time >= @start
  AND usage_start_time < @end
  AND project.id IN UNNEST(@projects)
GROUP BY day, service, team, currency
