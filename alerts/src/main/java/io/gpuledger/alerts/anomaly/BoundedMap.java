package io.gpuledger.alerts.anomaly;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A map that forgets its least recently used entry beyond a capacity: subjects and parts come and
 * go (jobs end), and a detector's memory must not grow with every job ever seen.
 */
final class BoundedMap<K, V> extends LinkedHashMap<K, V> {

    private static final long serialVersionUID = 1L;

    private final int capacity;

    BoundedMap(int capacity) {
        super(16, 0.75f, true);
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive, was " + capacity);
        }
        this.capacity = capacity;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > capacity;
    }
}
