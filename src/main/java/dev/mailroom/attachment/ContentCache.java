package dev.mailroom.attachment;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Fetched attachment bytes by SHA-256, least recently used out first, bounded by their total size: a retry of a job
 * whose provider failed does not fetch again what this node already fetched and checked. Safe to share between jobs
 * because the key is the content's own hash (checked before it is put). A restart empties it; nothing depends on it
 * but the number of fetches.
 */
final class ContentCache {

    private final long capacity;
    private final LinkedHashMap<String, byte[]> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long size;

    ContentCache(long capacity) {
        this.capacity = capacity;
    }

    synchronized Optional<byte[]> get(String sha256) {
        return Optional.ofNullable(entries.get(sha256));
    }

    synchronized void put(String sha256, byte[] content) {
        if (content.length > capacity || entries.containsKey(sha256)) {
            return;
        }
        entries.put(sha256, content);
        size += content.length;
        Iterator<Map.Entry<String, byte[]>> oldest = entries.entrySet().iterator();
        while (size > capacity && oldest.hasNext()) {
            size -= oldest.next().getValue().length;
            oldest.remove();
        }
    }
}
