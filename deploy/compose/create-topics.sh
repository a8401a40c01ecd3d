#!/usr/bin/env bash
# Creates GPU Ledger's topics on the compose broker before any service starts, with the settings of
# the topic registry (model/src/main/java/io/gpuledger/model/Topics.java; ComposeTest keeps this list
# equal to it). Runs in the broker's image; topics that exist are left as they are.
set -euo pipefail

bootstrap="${KAFKA_BOOTSTRAP_SERVERS:-kafka:9092}"
partitions="${GPULEDGER_PARTITIONS:-3}"

# name, then its settings beyond the broker's defaults (7 days, delete)
topics=(
    "gpu.telemetry.v1 message.timestamp.type=LogAppendTime"
    "pricing.quotes.v1 cleanup.policy=compact"
    "gpu.usage.v1"
    "gpu.rollups.v1"
    "gpu.hours.v1 retention.ms=34560000000"
    "finance.reconciliation.v1 cleanup.policy=compact"
    "gpu.job-economics.v1"
    "gpu.recommendations.v1 retention.ms=2592000000"
    "cost.anomalies.v1 retention.ms=2592000000"
    "alerts.webhook-deliveries.v1 cleanup.policy=compact,delete retention.ms=5184000000"
    "gpu.job-progress.v1 message.timestamp.type=LogAppendTime"
    "gpu.capacity-events.v1"
    "gpu.capacity-events.enriched.v1"
    "gpu.telemetry.dlq.v1"
    "gpu.job-progress.dlq.v1"
    "gpu.capacity-events.dlq.v1"
    "gpu.usage.dlq.v1"
    "gpu.alerts.dlq.v1"
)

for line in "${topics[@]}"; do
    read -r name settings <<< "$line"
    args=(--bootstrap-server "$bootstrap" --create --if-not-exists --topic "$name"
        --partitions "$partitions" --replication-factor 1)
    for setting in $settings; do
        args+=(--config "$setting")
    done
    /opt/kafka/bin/kafka-topics.sh "${args[@]}"
done
echo "topics ready on $bootstrap"
