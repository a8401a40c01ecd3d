// Over 400 lines: one thread and all the state it alone touches, kept in one class so that none is shared.
package io.gpuledger.alerts.webhook;

import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Topics;
import io.gpuledger.model.WebhookDelivery;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.jboss.logging.Logger;

/**
 * One run of a {@link WebhookDispatcher}, on its own thread: its clients and its state. Every
 * field is touched by that thread only, except {@code stopSignal}.
 *
 * <p>Each receiver has its own queue of anomalies in the order they were read, and only the head
 * of a queue is tried, concurrently with the heads of the other queues, so a receiver that is down
 * or slow to answer holds up neither the others nor the reading of
 * the topic, only the committing of offsets past what it has not taken yet. When that backlog
 * reaches {@link #MAX_PENDING} records the consumer pauses, and goes on polling (so that it stays
 * in its group) without fetching.
 */
final class DispatchLoop implements ConsumerRebalanceListener {

    private static final Logger LOG = Logger.getLogger(DispatchLoop.class);
    private static final String ANOMALIES = Topics.COST_ANOMALIES.name();
    private static final int MAX_PENDING = 1000;
    private static final long MAX_POLL_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final long IN_FLIGHT_POLL_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** Delivery rounds before the consumer is polled again. */
    private static final long DELIVERY_SLICE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final Duration LEDGER_RETRY = Duration.ofSeconds(5);

    /** An anomaly record that is done when none of the receivers it is for still wait for it. */
    private static final class PendingRecord {
        final long offset;
        int receiversWaiting;

        PendingRecord(long offset) {
            this.offset = offset;
        }
    }

    /** One anomaly for one receiver. */
    private static final class Task {
        final TopicPartition partition;
        final PendingRecord record;
        final CostAnomaly anomaly;
        final String key;
        int failures;
        long dueNanos = System.nanoTime();
        byte[] body;
        /** The try under way; null between tries. */
        CompletableFuture<WebhookSender.Attempt> inFlight;

        Task(TopicPartition partition, PendingRecord record, CostAnomaly anomaly, String key) {
            this.partition = partition;
            this.record = record;
            this.anomaly = anomaly;
            this.key = key;
        }
    }

    private record LedgerWrite(WebhookDelivery delivery, Future<RecordMetadata> ack) {
    }

    private final List<WebhookReceiver> receivers;
    private final Map<String, ReceiverCounters> counters;
    private final WebhookDispatcher.Clients clients;
    private final DeliveryPolicy policy;
    private final Clock clock;
    private final Runnable beforeCommit;
    private final Runnable countUnreadable;
    private final CountDownLatch stopSignal = new CountDownLatch(1);

    private final Map<WebhookReceiver, Deque<Task>> queues = new LinkedHashMap<>();
    /** Delivery keys waiting in a queue: a second record of the same anomaly is not queued again. */
    private final Set<String> queuedDeliveryKeys = new HashSet<>();
    /** Per partition, in offset order, the records a receiver still waits for: commits stop at the first. */
    private final Map<TopicPartition, Deque<PendingRecord>> undeliveredRecords = new HashMap<>();
    private final Map<TopicPartition, Long> readUpTo = new HashMap<>();
    private final Map<TopicPartition, Long> committedOffsets = new HashMap<>();
    /** Delivery records sent to the ledger whose write is not yet confirmed; written again if it failed. */
    private final List<LedgerWrite> unconfirmedLedgerWrites = new ArrayList<>();
    private int undeliveredRecordCount;
    private boolean closing;

    DispatchLoop(List<WebhookReceiver> receivers, Map<String, ReceiverCounters> counters,
            WebhookDispatcher.Clients clients, DeliveryPolicy policy, Clock clock, Runnable beforeCommit,
            Runnable countUnreadable) {
        this.receivers = receivers;
        this.counters = counters;
        this.clients = clients;
        this.policy = policy;
        this.clock = clock;
        this.beforeCommit = beforeCommit;
        this.countUnreadable = countUnreadable;
        receivers.forEach(receiver -> queues.put(receiver, new ArrayDeque<>()));
    }

    /** Asks the loop to end; it does within a poll wait, abandoning a request in flight. */
    void stop() {
        stopSignal.countDown();
        clients.sender().close();
    }

    private boolean running() {
        return stopSignal.getCount() > 0;
    }

    void run() {
        boolean clean = false;
        try {
            loadLedger();
            clients.consumer().subscribe(List.of(ANOMALIES), this);
            while (running()) {
                pauseWhileBacklogged();
                for (ConsumerRecord<String, byte[]> record : clients.consumer().poll(pollWait())) {
                    accept(record);
                }
                deliverDue();
                commitSettled();
            }
            commitSettled();
            clean = true;
        } catch (RuntimeException e) {
            LOG.error("webhook dispatcher stopped on an unexpected error; undelivered anomalies are sent after a "
                    + "restart", e);
        } finally {
            // Closing the consumer revokes its partitions; past a failure nothing more may be committed.
            closing = true;
            clients.close();
            LOG.infof("webhook dispatcher %s", clean ? "stopped" : "ended");
        }
    }

    /** Reads the ledger whole before any anomaly; retried while the broker or the topic is not there yet. */
    private void loadLedger() {
        while (running()) {
            try {
                clients.ledger().catchUp(this::running);
                LOG.debugf("delivery ledger holds %d deliveries", clients.ledger().size());
                return;
            } catch (KafkaException | IllegalStateException e) {
                LOG.warnf("cannot read %s yet (%s); trying again in %s", Topics.WEBHOOK_DELIVERIES.name(),
                        e.getMessage(), LEDGER_RETRY);
                await(LEDGER_RETRY);
            }
        }
    }

    private void accept(ConsumerRecord<String, byte[]> record) {
        TopicPartition partition = new TopicPartition(record.topic(), record.partition());
        readUpTo.put(partition, record.offset() + 1);
        CostAnomaly anomaly = read(record);
        if (anomaly == null) {
            return;
        }
        PendingRecord entry = new PendingRecord(record.offset());
        for (WebhookReceiver receiver : receivers) {
            if (!receiver.accepts(anomaly)) {
                continue;
            }
            String key = WebhookDelivery.keyOf(receiver.name(), anomaly.id());
            if (clients.ledger().contains(key) || queuedDeliveryKeys.contains(key)) {
                counters.get(receiver.name()).countAlreadyDelivered();
                continue;
            }
            queuedDeliveryKeys.add(key);
            entry.receiversWaiting++;
            queues.get(receiver).add(new Task(partition, entry, anomaly, key));
        }
        if (entry.receiversWaiting > 0) {
            undeliveredRecords.computeIfAbsent(partition, p -> new ArrayDeque<>()).add(entry);
            undeliveredRecordCount++;
        }
    }

    private CostAnomaly read(ConsumerRecord<String, byte[]> record) {
        try {
            CostAnomaly anomaly = Topics.COST_ANOMALIES.valueSerde().deserializer()
                    .deserialize(ANOMALIES, record.value());
            if (anomaly != null) {
                return anomaly;
            }
            LOG.warnf("skipped empty record %s-%d@%d", record.topic(), record.partition(), record.offset());
        } catch (InvalidRecordException e) {
            LOG.warnf("skipped unreadable anomaly %s-%d@%d: %s", record.topic(), record.partition(), record.offset(),
                    e.getMessage());
        }
        countUnreadable.run();
        return null;
    }

    /**
     * Starts a try of the head of every queue that is due, and takes in the tries that ended,
     * round after round, for at most a slice of time. Receivers are tried concurrently, one try
     * each at a time, so a receiver that is slow to answer holds up only its own queue.
     */
    private void deliverDue() {
        long sliceEnd = System.nanoTime() + DELIVERY_SLICE_NANOS;
        while (running()) {
            boolean progressed = false;
            List<CompletableFuture<?>> flying = new ArrayList<>();
            long nextDue = Long.MAX_VALUE;
            for (Map.Entry<WebhookReceiver, Deque<Task>> queue : queues.entrySet()) {
                Task head = queue.getValue().peek();
                if (head != null && head.inFlight != null && head.inFlight.isDone()) {
                    WebhookSender.Attempt attempt = head.inFlight.join();
                    head.inFlight = null;
                    finish(queue.getKey(), queue.getValue(), head, attempt);
                    progressed = true;
                    head = queue.getValue().peek();
                }
                if (head == null || !running()) {
                    continue;
                }
                if (head.inFlight == null && head.dueNanos - System.nanoTime() <= 0) {
                    start(queue.getKey(), head);
                    progressed = true;
                }
                if (head.inFlight != null) {
                    flying.add(head.inFlight);
                } else {
                    nextDue = Math.min(nextDue, head.dueNanos - System.nanoTime());
                }
            }
            long left = sliceEnd - System.nanoTime();
            if (left <= 0 || (!progressed && flying.isEmpty())) {
                return;
            }
            if (!progressed) {
                awaitAny(flying, Math.min(left, Math.max(0, nextDue)));
            }
        }
    }

    private void start(WebhookReceiver receiver, Task task) {
        if (task.body == null) {
            task.body = WebhookPayloads.body(receiver.format(), task.anomaly);
        }
        task.inFlight = clients.sender().post(receiver, task.anomaly.id(), task.body);
    }

    /** Waits until one of the tries ends, or for {@code nanos} at most. */
    private static void awaitAny(List<CompletableFuture<?>> flying, long nanos) {
        try {
            CompletableFuture.anyOf(flying.toArray(CompletableFuture[]::new)).get(nanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // Nothing ended in time, or a try failed: either way the next round looks again.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void finish(WebhookReceiver receiver, Deque<Task> queue, Task task, WebhookSender.Attempt attempt) {
        ReceiverCounters counted = counters.get(receiver.name());
        switch (attempt.result()) {
            case DELIVERED -> {
                counted.countDelivered();
                settle(receiver, queue, task, attempt.status());
            }
            case REFUSED -> {
                counted.countRefused();
                LOG.warnf("receiver %s refused anomaly %s (%s); recorded as refused, not sent again",
                        receiver.name(), task.anomaly.id(), attempt.problem());
                settle(receiver, queue, task, attempt.status());
            }
            case RETRY -> {
                counted.countRetry();
                task.failures++;
                Duration wait = policy.retryDelay(task.failures, attempt.retryAfter(),
                        ThreadLocalRandom.current().nextDouble());
                task.dueNanos = System.nanoTime() + wait.toNanos();
                if (Integer.bitCount(task.failures) == 1) {
                    // Logged on failures 1, 2, 4, 8 …: a receiver that is down for a day does not flood the log.
                    LOG.warnf("receiver %s did not take anomaly %s (%s) after %d tries; trying again in %d ms",
                            receiver.name(), task.anomaly.id(), attempt.problem(), task.failures, wait.toMillis());
                }
            }
            case ABANDONED -> {
                // Stopping: the anomaly stays uncommitted and is sent after the restart.
            }
        }
    }

    /** The receiver has answered for good: record it in the ledger and move its queue on. */
    private void settle(WebhookReceiver receiver, Deque<Task> queue, Task task, int status) {
        queue.poll();
        queuedDeliveryKeys.remove(task.key);
        clients.ledger().add(task.key);
        task.record.receiversWaiting--;
        write(new WebhookDelivery(receiver.name(), task.anomaly.id(), clock.instant(), task.failures + 1, status));
    }

    private void write(WebhookDelivery delivery) {
        Future<RecordMetadata> ack;
        try {
            ack = clients.producer().send(
                    new ProducerRecord<>(Topics.WEBHOOK_DELIVERIES.name(), delivery.key(), delivery));
        } catch (KafkaException e) {
            ack = CompletableFuture.failedFuture(e);
        }
        unconfirmedLedgerWrites.add(new LedgerWrite(delivery, ack));
    }

    /**
     * Commits, per partition, up to the first record some receiver still waits for, once the
     * delivery records of everything before it are on the broker: a restart then finds every
     * anomaly either uncommitted or in the ledger.
     */
    private void commitSettled() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        readUpTo.forEach((partition, end) -> {
            Deque<PendingRecord> records = undeliveredRecords.getOrDefault(partition, new ArrayDeque<>());
            while (!records.isEmpty() && records.peek().receiversWaiting == 0) {
                records.poll();
                undeliveredRecordCount--;
            }
            long next = records.isEmpty() ? end : records.peek().offset;
            if (next > committedOffsets.getOrDefault(partition, -1L)) {
                offsets.put(partition, new OffsetAndMetadata(next));
            }
        });
        if (!ledgerWritten() || offsets.isEmpty()) {
            return;
        }
        beforeCommit.run();
        try {
            clients.consumer().commitSync(offsets);
            offsets.forEach((partition, offset) -> committedOffsets.put(partition, offset.offset()));
        } catch (CommitFailedException | RetriableException e) {
            LOG.warnf("offsets not committed, tried again later: %s", e.getMessage());
        }
    }

    /** Waits for the delivery records sent so far; sends again those that failed. */
    private boolean ledgerWritten() {
        if (unconfirmedLedgerWrites.isEmpty()) {
            return true;
        }
        clients.producer().flush();
        List<LedgerWrite> failed = new ArrayList<>();
        for (LedgerWrite written : unconfirmedLedgerWrites) {
            try {
                written.ack().get();
            } catch (ExecutionException e) {
                LOG.warnf("delivery record %s not written (%s); writing it again", written.delivery().key(),
                        e.getCause() == null ? e.getMessage() : e.getCause().getMessage());
                failed.add(written);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failed.add(written);
            }
        }
        unconfirmedLedgerWrites.clear();
        failed.forEach(written -> write(written.delivery()));
        return failed.isEmpty();
    }

    private Duration pollWait() {
        long wait = MAX_POLL_WAIT_NANOS;
        long now = System.nanoTime();
        for (Deque<Task> queue : queues.values()) {
            Task head = queue.peek();
            if (head != null && head.inFlight != null) {
                // A try under way is taken in by the next delivery round, which waits for it.
                wait = Math.min(wait, IN_FLIGHT_POLL_WAIT_NANOS);
            } else if (head != null) {
                wait = Math.min(wait, Math.max(0, head.dueNanos - now));
            }
        }
        return Duration.ofNanos(wait);
    }

    private void pauseWhileBacklogged() {
        if (undeliveredRecordCount >= MAX_PENDING) {
            clients.consumer().pause(clients.consumer().assignment());
        } else if (!clients.consumer().paused().isEmpty()) {
            clients.consumer().resume(clients.consumer().paused());
        }
    }

    private void await(Duration duration) {
        try {
            stopSignal.await(duration.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopSignal.countDown();
        }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        if (!closing) {
            commitSettled();
        }
        forget(partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        forget(partitions);
    }

    /**
     * Another instance may have delivered anomalies of these partitions until it gave them up:
     * its delivery records were written before it committed, so reading the ledger on now shows them.
     */
    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        if (!partitions.isEmpty()) {
            loadLedger();
        }
    }

    /** Drops what was read from partitions this instance no longer owns; their next owner reads them again. */
    private void forget(Collection<TopicPartition> partitions) {
        for (TopicPartition partition : partitions) {
            Deque<PendingRecord> records = undeliveredRecords.remove(partition);
            undeliveredRecordCount -= records == null ? 0 : records.size();
            readUpTo.remove(partition);
            committedOffsets.remove(partition);
        }
        for (Deque<Task> queue : queues.values()) {
            for (Iterator<Task> tasks = queue.iterator(); tasks.hasNext(); ) {
                Task task = tasks.next();
                if (partitions.contains(task.partition)) {
                    queuedDeliveryKeys.remove(task.key);
                    tasks.remove();
                }
            }
        }
    }
}
