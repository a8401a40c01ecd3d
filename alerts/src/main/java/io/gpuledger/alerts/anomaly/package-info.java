/**
 * Cost anomalies for finance, detected from closed minutes and price versions, without Kafka or
 * Quarkus: {@link io.gpuledger.alerts.anomaly.SpendRateDetector},
 * {@link io.gpuledger.alerts.anomaly.BudgetBurn}, {@link io.gpuledger.alerts.anomaly.PriceSpikeDetector}
 * and {@link io.gpuledger.alerts.anomaly.CostPerThroughputDetector}, each returning
 * {@link io.gpuledger.model.CostAnomaly} records.
 *
 * <p>Time is the data's: windows come from the minutes and quotes, {@code detectedAt} is passed
 * in by the caller, and nothing here reads a clock. The detectors keep state and are not
 * thread-safe; the service feeds each from one thread. Every delivered anomaly has an id of its
 * own: {@code CostAnomaly.idFor(kind, dimension, subject, windowStart)} followed by
 * {@code :warning} or {@code :critical}, so an episode that escalates is delivered twice under
 * two ids that share the window.
 */
package io.gpuledger.alerts.anomaly;
