package io.gpuledger.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.streams.errors.MissingSourceTopicException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

/** Which failures of a stream thread a new thread may cure, and which stop the engine. */
class ThreadFailuresTest {

    private static final Instant T0 = Instant.parse("2026-12-05T00:00:00Z");

    private final List<String> said = new ArrayList<>();
    private final MovableClock clock = new MovableClock();
    private final ThreadFailures failures = new ThreadFailures(Duration.ofMinutes(5), clock, said::add);

    @Test
    void shouldStopAtOnceWhenTheClusterRefusesTheEngine() {
        // Authorization, however deep in the chain Kafka Streams wraps it, and authentication
        assertThat(failures.handle(new StreamsException(new StreamsException(
                new TopicAuthorizationException("Not authorized to access topics: [gpu.usage.v1]")))))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(said.get(0)).contains("stopping", "refuses this engine's principal", "gpu.usage.v1");
        assertThat(new ThreadFailures(Duration.ofMinutes(5), clock, said::add)
                .handle(new StreamsException(new GroupAuthorizationException("group"))))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(new ThreadFailures(Duration.ofMinutes(5), clock, said::add)
                .handle(new SaslAuthenticationException("bad password")))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    }

    @Test
    void shouldStopAtOnceWhenItsOwnRecordsCannotBeWritten() {
        assertThat(failures.handle(new StreamsException(new SerializationException("cannot write usage"))))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    }

    @Test
    void shouldReplaceAThreadThatFailedOnAPassingFaultButStopALoop() {
        // Five failures in ten minutes are replaced, one by one
        for (int i = 0; i < 5; i++) {
            clock.move(Duration.ofMinutes(1));
            assertThat(failures.handle(new StreamsException(new TimeoutException("slow broker"))))
                    .as("failure %d", i + 1).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        }
        // the sixth within the same ten minutes stops the engine
        clock.move(Duration.ofMinutes(1));
        assertThat(failures.handle(new StreamsException(new TimeoutException("slow broker"))))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(said.get(said.size() - 1)).contains("6 stream threads failed within 10 min");
    }

    @Test
    void shouldForgetFailuresOlderThanTheWindow() {
        for (int i = 0; i < 5; i++) {
            assertThat(failures.handle(new IllegalStateException("bug"))).isEqualTo(
                    StreamThreadExceptionResponse.REPLACE_THREAD);
        }
        // Ten minutes later the five are old: a sixth failure is a new, passing fault
        clock.move(Duration.ofMinutes(10));
        assertThat(failures.handle(new IllegalStateException("bug"))).isEqualTo(
                StreamThreadExceptionResponse.REPLACE_THREAD);
    }

    @Test
    void shouldWaitForMissingTopicsOnlyAsLongAsItIsTold() {
        MissingSourceTopicException missing = new MissingSourceTopicException("One or more source topics were"
                + " missing during rebalance");
        // Missing topics are waited for, however often a thread meets them, for five minutes
        for (int i = 0; i <= 10; i++) {
            assertThat(failures.handle(missing)).as("at %d s", i * 30).isEqualTo(
                    StreamThreadExceptionResponse.REPLACE_THREAD);
            clock.move(Duration.ofSeconds(30));
        }
        // and then they stop the engine
        assertThat(failures.handle(missing)).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(said.get(said.size() - 1)).contains("input topics missing for more than 300 s");
    }

    /** A clock the test moves. */
    private static final class MovableClock extends Clock {

        private Instant now = T0;

        void move(Duration by) {
            now = now.plus(by);
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
