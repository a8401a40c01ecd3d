package io.gpuledger.finance;

import io.gpuledger.model.CarbonIntensity;
import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.GpuHour;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.Json;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * {@code gpu-ledger export focus}: the GPU hours on {@code gpu.hours.v1} that start in {@code [from, to)} as a
 * FOCUS file, priced at the list prices on {@code pricing.quotes.v1}, each job's row with what its work cost per
 * million units that hour (from {@code gpu.job-economics.v1}). Reads without a consumer group, so it
 * commits nothing and can run beside the alert service as often as finance likes. A record that cannot be read
 * is counted and left out; the export goes on.
 *
 * @param team      only the rows charged to this team (empty: all)
 * @param job       only the rows charged to this job (empty: all)
 * @param timeout   how long reading a topic to its end may take
 * @param readToEnd read every partition to its end, not only until its records are dated {@link #LATEST_ARRIVAL}
 *                  after {@code to}: an hour sent again after the engine's inputs were processed anew (its state
 *                  reset) comes after the records of later hours, and only so are its corrections found
 */
public record FocusExport(String bootstrap, Instant from, Instant to, Optional<String> team, Optional<String> job,
        FocusAccount account, String currency, Duration timeout, boolean readToEnd) {

    /**
     * How long after an hour's start its record may still arrive: an hour is sent when its last minute closes,
     * or an hour or so after its GPU fell silent, or later while the engine works off a backlog. A partition is
     * read until its records start this long after {@code to}.
     */
    static final Duration LATEST_ARRIVAL = Duration.ofHours(6);

    /** The record time a partition is read until for the hours starting before {@code to}: null for its end. */
    static Instant readUntil(Instant to, boolean readToEnd) {
        return readToEnd ? null : to.plus(LATEST_ARRIVAL);
    }

    /** What an export wrote; {@code hours} counts each GPU's hour once, however often it was sent. */
    public record Summary(long hours, long rows, long corrections, long repeats, long unreadable) {
    }

    public FocusExport {
        if (!to.isAfter(from)) {
            throw new IllegalArgumentException("--to must be after --from");
        }
    }

    /** An export that reads each partition until its records are dated {@link #LATEST_ARRIVAL} after {@code to}. */
    public FocusExport(String bootstrap, Instant from, Instant to, Optional<String> team, Optional<String> job,
            FocusAccount account, String currency, Duration timeout) {
        this(bootstrap, from, to, team, job, account, currency, timeout, false);
    }

    /** Reads the topics and writes the file. */
    public Summary writeTo(Path file) {
        FocusFile.Format.of(file);
        try (KafkaConsumer<String, byte[]> consumer = TopicRange.consumer(bootstrap, "gpu-ledger-focus-export",
                timeout); FocusFile focus = new FocusFile()) {
            ListPrices prices = new ListPrices(CurrencyRates.shipped(currency));
            long[] unreadable = {0};
            TopicRange.read(consumer, Topics.PRICES.name(), null, null, timeout, record -> {
                try {
                    prices.add(Json.read(record.value(), PriceQuote.class));
                } catch (InvalidRecordException e) {
                    unreadable[0]++;
                }
            });
            WorkCosts work = new WorkCosts(from);
            Instant until = readUntil(to, readToEnd);
            TopicRange.read(consumer, Topics.JOB_ECONOMICS.name(), from, until, timeout,
                    record -> {
                        try {
                            JobEconomics minute = Json.read(record.value(), JobEconomics.class);
                            if (minute.windowStart().isBefore(to)) {
                                work.add(minute);
                            }
                        } catch (InvalidRecordException e) {
                            unreadable[0]++;
                        }
                    });
            FocusLedger ledger = new FocusLedger(new FocusRows(prices, account, CarbonIntensity.shipped(), work));
            TopicRange.read(consumer, Topics.HOURS.name(), from, until, timeout, record -> {
                GpuHour hour;
                try {
                    hour = Json.read(record.value(), GpuHour.class);
                } catch (InvalidRecordException e) {
                    unreadable[0]++;
                    return;
                }
                if (hour.windowStart().isBefore(from) || !hour.windowStart().isBefore(to)) {
                    return;
                }
                for (FocusRow row : ledger.take(hour)) {
                    if (wanted(row)) {
                        focus.add(row);
                    }
                }
            });
            focus.writeTo(file);
            return new Summary(ledger.hours(), focus.rows(), ledger.corrections(), ledger.repeats(), unreadable[0]);
        }
    }

    private boolean wanted(FocusRow row) {
        return team.map(wanted -> wanted.equals(row.text(FocusColumn.X_TEAM))).orElse(true)
                && job.map(wanted -> wanted.equals(row.text(FocusColumn.X_JOB_ID))).orElse(true);
    }
}
