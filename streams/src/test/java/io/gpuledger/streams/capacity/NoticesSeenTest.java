package io.gpuledger.streams.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The notices lately published for an instance: bounded in number and in age, and read back. */
class NoticesSeenTest {

    private static final long T0 = 1_772_366_400_000L;

    @Test
    void shouldForgetNoticesADayOlderThanTheLatestAndKeepAtMostItsLimit() {
        NoticesSeen seen = new NoticesSeen();
        for (int i = 0; i < NoticesSeen.MAX_NOTICES + 3; i++) {
            seen.add("notice-" + i, T0 + i * 1000L);
        }
        assertThat(seen.size()).isEqualTo(NoticesSeen.MAX_NOTICES);
        assertThat(seen.contains("notice-0")).isFalse();
        assertThat(seen.contains("notice-3")).isTrue();

        seen.add("much-later", T0 + NoticesSeen.KEPT_MILLIS + 60_000);
        assertThat(seen.size()).isEqualTo(1);

        NoticesSeen read = NoticesSeen.CODEC.fromBytes(NoticesSeen.CODEC.toBytes(seen));
        assertThat(read.contains("much-later")).isTrue();
        assertThat(read.latest()).isEqualTo(T0 + NoticesSeen.KEPT_MILLIS + 60_000);
    }
}
