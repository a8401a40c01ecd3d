package io.gpuledger.ingest.agent.delivery;

import io.gpuledger.model.KafkaClientSettings;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Gets the agent's records into Kafka without losing any while the agent runs.
 *
 * <ul>
 *   <li>The producer is idempotent and retries without a deadline, so a record it has taken is
 *       written however long the broker is away; once, unless a dying broker wrote a batch it did
 *       not acknowledge, which the producer's next epoch sends again.</li>
 *   <li>While the broker is away, the producer's (small) buffer fills; then {@code send} cannot
 *       take more within {@code max.block.ms}, and records go to the on-disk {@link Spool}.</li>
 *   <li>As long as anything is spooled, new records are spooled behind it, and a replay thread
 *       hands the spool to the producer oldest first: order is kept.</li>
 *   <li>On close, records the producer still held are put back at the front of the spool, to be
 *       replayed first by the next run.</li>
 * </ul>
 * An agent killed outright loses what its producer held (at most the buffer), and may send again
 * the part of the spool segment it was replaying: at-least-once across crashes.
 */
public final class Delivery implements AutoCloseable {

    private final Producer<String, byte[]> producer;
    private final Spool spool;
    private final Consumer<String> log;
    private final DeliveryCounters counters = new DeliveryCounters();
    private final AtomicLong sequence = new AtomicLong();
    /**
     * The records the producer has taken, by submission number, each as the one hand-over that is in flight: a
     * callback of an earlier hand-over of the same record (a send that failed, the record then spooled and handed
     * over again) must not take the later one for its own.
     */
    private final ConcurrentSkipListMap<Long, HandOver> inFlight = new ConcurrentSkipListMap<>();

    /** One hand-over of a record to the producer, told apart from another of the same record by its identity. */
    private static final class HandOver {
        private final SpooledRecord record;

        private HandOver(SpooledRecord record) {
            this.record = record;
        }
    }
    private final ScheduledExecutorService replayer;
    private volatile boolean closing;
    /** Spool problems already told: those found on opening it are the caller's to tell. */
    private int problemsTold;

    public Delivery(Producer<String, byte[]> producer, Spool spool, Duration replayPeriod, Consumer<String> log) {
        this.producer = producer;
        this.spool = spool;
        this.log = log;
        this.problemsTold = spool.problems().size();
        this.replayer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "agent-spool-replay");
            thread.setDaemon(true);
            return thread;
        });
        replayer.scheduleWithFixedDelay(this::replay, replayPeriod.toMillis(), replayPeriod.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Producer settings for delivery that loses nothing: see the class comment. */
    public static Properties producerConfig(String bootstrapServers, String clientId, long bufferBytes) {
        Properties props = KafkaClientSettings.producer(bootstrapServers, clientId, 50);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.MAX_VALUE);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 500);
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, bufferBytes);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, (int) Math.min(16_384, bufferBytes / 4));
        props.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 2_000);
        return props;
    }

    public static Producer<String, byte[]> producer(String bootstrapServers, String clientId, long bufferBytes) {
        return new KafkaProducer<>(producerConfig(bootstrapServers, clientId, bufferBytes), new StringSerializer(),
                new ByteArraySerializer());
    }

    /** Sends or spools one record; never blocks longer than the producer's {@code max.block.ms}. */
    public void submit(String topic, String key, byte[] value, long timestamp) {
        SpooledRecord record = new SpooledRecord(sequence.incrementAndGet(), topic, key, value, timestamp);
        counters.submitted.incrementAndGet();
        synchronized (spool) {
            if (!closing && spool.isEmpty() && trySend(record)) {
                return;
            }
            spoolRecord(record);
        }
    }

    public DeliveryCounters counters() {
        return counters;
    }

    /** Records on disk waiting for Kafka. */
    public long spooledNow() {
        synchronized (spool) {
            return spool.records();
        }
    }

    /** Records dropped, oldest first, because the spool reached its bound. */
    public long dropped() {
        synchronized (spool) {
            return spool.droppedRecords();
        }
    }

    /** Records the producer has taken and Kafka has not acknowledged yet. */
    public int pending() {
        return inFlight.size();
    }

    /**
     * The submission numbers (1 for the first record submitted, and so on) of the records the producer has taken
     * and Kafka has not acknowledged yet: those a broker dying now may write twice (see the class comment).
     */
    Set<Long> unacknowledged() {
        return Set.copyOf(inFlight.keySet());
    }

    /** Records the spool could not write (a full disk): lost, and counted in {@link DeliveryCounters#failed()} too. */
    public long spoolWriteLost() {
        synchronized (spool) {
            return spool.lostOnWrite();
        }
    }

    /** Damaged stretches of the spool skipped on replay, each one record or more. */
    public long spoolDamaged() {
        synchronized (spool) {
            return spool.damaged();
        }
    }

    /** Waits until what was handed to the replay thread so far has run. */
    void awaitReplayThread() throws InterruptedException, ExecutionException {
        replayer.submit(() -> { }).get();
    }

    /** Hands spooled records to the producer, oldest first, until it cannot take more. */
    void replay() {
        synchronized (spool) {
            // This timer is also what makes the last records of a burst durable under an interval sync.
            spool.syncIfDue();
            try {
                SpooledRecord next;
                while (!closing && (next = spool.peek()) != null) {
                    if (!trySend(next)) {
                        return;
                    }
                    spool.take();
                    counters.replayed.incrementAndGet();
                }
            } finally {
                tellNewProblems();
            }
        }
    }

    /** Damage found in a segment as it is replayed is told once, as the spool finds it. */
    private void tellNewProblems() {
        List<String> problems = spool.problems();
        for (int i = problemsTold; i < problems.size(); i++) {
            log.accept("spool: " + problems.get(i));
        }
        problemsTold = problems.size();
    }

    private boolean trySend(SpooledRecord record) {
        HandOver handOver = new HandOver(record);
        inFlight.put(record.sequence(), handOver);
        try {
            Future<RecordMetadata> sent = producer.send(new ProducerRecord<>(record.topic(), null, record.timestamp(),
                    record.key(), record.value()), acknowledgement(handOver));
            if (sent.isDone()) {
                // Failed within send(): buffer full or no metadata within max.block.ms. The producer
                // reports that through the future and the callback rather than by throwing.
                sent.get();
            }
            return true;
        } catch (KafkaException | ExecutionException e) {
            inFlight.remove(record.sequence(), handOver);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            inFlight.remove(record.sequence(), handOver);
            return false;
        }
    }

    private Callback acknowledgement(HandOver handOver) {
        SpooledRecord record = handOver.record;
        return (metadata, error) -> {
            if (error == null) {
                inFlight.remove(record.sequence(), handOver);
                counters.sent.incrementAndGet();
            } else if (closing) {
                // Still ours: close() puts what is left in flight back on the spool.
            } else if (error instanceof RetriableException) {
                // The producer gave up on a record it had taken; keep it for a later replay.
                // Not on this (the producer's I/O) thread: spooling may wait for a send to finish.
                replayer.execute(() -> respool(handOver));
            } else {
                inFlight.remove(record.sequence(), handOver);
                counters.failed.incrementAndGet();
                log.accept("record to " + record.topic() + " refused by Kafka: " + error);
            }
        };
    }

    /** Spools a hand-over the producer gave up on, unless it was taken back since (and handed over again). */
    private void respool(HandOver handOver) {
        synchronized (spool) {
            if (inFlight.remove(handOver.record.sequence(), handOver)) {
                spoolRecord(handOver.record);
            }
        }
    }

    private void spoolRecord(SpooledRecord record) {
        try {
            spool.append(record);
            counters.spooled.incrementAndGet();
        } catch (IOException e) {
            counters.failed.incrementAndGet();
            log.accept("cannot spool a record to " + record.topic() + ": " + e.getMessage());
        }
    }

    /**
     * Waits up to {@code timeout} for Kafka to take what is pending; puts what it did not take at
     * the front of the spool, then closes.
     */
    public void close(Duration timeout) {
        replayer.shutdownNow();
        // Not flush(): with no delivery deadline it would wait for an absent broker forever.
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!inFlight.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        closing = true;
        producer.close(Duration.ZERO);
        synchronized (spool) {
            List<SpooledRecord> unsent = inFlight.values().stream().map(handOver -> handOver.record).toList();
            inFlight.clear();
            try {
                spool.prepend(unsent);
                counters.spooled.addAndGet(unsent.size());
                spool.close();
            } catch (IOException e) {
                counters.failed.addAndGet(unsent.size());
                log.accept("cannot spool " + unsent.size() + " unsent records on close: " + e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }
}
