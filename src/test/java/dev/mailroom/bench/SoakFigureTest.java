package dev.mailroom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The soak's readings of the JDK's and the kernel's own words, and its lines. */
class SoakFigureTest {

    @Test
    void theHeapLineIsReadAndAnOutputWithoutOneIsRefused() {
        String g1 = """
                12524:
                 garbage-first heap   total 311296K, used 115832K [0x00000000d0000000, 0x0000000100000000)
                  region size 1024K, 18 young (18432K), 1 survivors (1024K)
                 Metaspace       used 158279K, committed 162240K, reserved 1245184K
                """;
        assertThat(SoakFigure.heapUsed(g1)).containsExactly(311296, 115832);
        assertThatThrownBy(() -> SoakFigure.heapUsed("12524:\n Metaspace       used 158279K, committed 162240K\n"))
                .hasMessageContaining("no heap line");
    }

    @Test
    void residentMemoryIsVmRss() {
        assertThat(SoakFigure.rssKib("Name:\tjava\nVmHWM:\t  900000 kB\nVmRSS:\t  812344 kB\nRssAnon:\t 1 kB\n"))
                .isEqualTo(812344);
    }

    @Test
    void theLineSaysTheRatioOfTheLastReadingToTheFirst() {
        SoakFigure.Figures f = new SoakFigure.Figures("PostgreSQL", 4, new SoakFigure.Reading(10_000, 100_000, 200_000, 700_000),
                new SoakFigure.Reading(200_000, 112_000, 250_000, 800_000), 0);
        assertThat(SoakFigure.summaryLines(f)).first()
                .isEqualTo("Heap after a full GC, 200k jobs / first 10k, sandbox, 4 consumers, PostgreSQL: 1.12");
        assertThat(SoakFigure.note(f)).contains("= 1.12, target <= 1.10: MISSED");
    }
}
