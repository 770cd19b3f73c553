package dev.mailroom.attachment;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ContentCacheTest {

    @Test
    void theLeastRecentlyUsedGoFirstOnceTheBytesExceedTheCapacity() {
        ContentCache cache = new ContentCache(10);
        cache.put("a", new byte[4]);
        cache.put("b", new byte[4]);
        assertThat(cache.get("a")).isPresent(); // a is now the most recently used
        cache.put("c", new byte[4]);
        assertThat(cache.get("b")).isEmpty();
        assertThat(cache.get("a")).isPresent();
        assertThat(cache.get("c")).isPresent();
    }

    @Test
    void nothingLargerThanTheCapacityIsKeptAndZeroKeepsNothing() {
        ContentCache cache = new ContentCache(10);
        cache.put("big", new byte[11]);
        assertThat(cache.get("big")).isEmpty();
        ContentCache none = new ContentCache(0);
        none.put("a", new byte[1]);
        assertThat(none.get("a")).isEmpty();
    }
}
