package dev.mailroom.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The provider fixtures reach every row of the shipped event mappings: a new row needs a new fixture. */
class EventMappingsCoverageTest {

    @Test
    void every_shipped_row_is_reached_by_a_fixture() throws Exception {
        Set<String> reached = new TreeSet<>();
        for (ProviderFixtures.Fixture f : ProviderFixtures.all()) {
            EventNormaliser.normalise(f.profile(), f.body(), reached::add);
        }
        Set<String> all = new TreeSet<>(EventMappings.shipped().rowIds());
        assertThat(all).hasSizeGreaterThan(50);
        reached.removeIf(id -> id.endsWith("/-"));
        assertThat(reached).isEqualTo(all);
    }

    @Test
    void every_mapped_profile_has_fixtures() {
        assertThat(EventMappings.shipped().profileNames()).containsExactlyInAnyOrderElementsOf(ProviderFixtures.PROFILES);
    }
}
