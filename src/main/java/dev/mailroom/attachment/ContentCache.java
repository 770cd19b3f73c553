package dev.mailroom.attachment;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Fetched attachment bytes by URL and SHA-256, least recently used out first, bounded by their total size: a retry of a
 * job whose provider failed does not fetch again what this node already fetched and checked. Keyed by the URL too, not
 * the hash alone: a job naming another URL is answered by that URL (a 404 there is this job's failure, whatever another
 * job fetched), and knowing a file's hash is not a way to another producer's file. A restart empties it; nothing
 * depends on it but the number of fetches.
 */
final class ContentCache {

    private final long capacity;
    private final LinkedHashMap<String, byte[]> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long size;

    ContentCache(long capacity) {
        this.capacity = capacity;
    }

    synchronized Optional<byte[]> get(String key) {
        return Optional.ofNullable(entries.get(key));
    }

    /** The key of a fetched file: its URL and the SHA-256 it was checked against. */
    static String key(String url, String sha256) {
        return sha256 + " " + url;
    }

    synchronized void put(String key, byte[] content) {
        if (content.length > capacity || entries.containsKey(key)) {
            return;
        }
        entries.put(key, content);
        size += content.length;
        Iterator<Map.Entry<String, byte[]>> oldest = entries.entrySet().iterator();
        while (size > capacity && oldest.hasNext()) {
            size -= oldest.next().getValue().length;
            oldest.remove();
        }
    }
}
