package dev.mailroom.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.function.Function;

import javax.imageio.ImageIO;

/**
 * The benchmark's chart: throughput against concurrency, one panel per provider latency (0 ms sandbox, 50 ms HTTP
 * stub), Mailroom beside the naive bean and the guarded bean (the floor of the guarantees), solid for H2 and dashed for
 * PostgreSQL. Plain Java2D and ImageIO (headless):
 * one line chart does not justify a charting library on the test classpath.
 */
final class SendChart {

    private static final int PANEL_W = 560;
    private static final int H = 460;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    private static final int TOP = 95;
    private static final int BOTTOM = 60;
    private static final Color MAILROOM = new Color(0x1f77b4);
    private static final Color NAIVE = new Color(0xff7f0e);
    private static final Color GUARDED = new Color(0x2ca02c);

    /** One line per bean: its name in the legend, its colour, its result at a point. */
    private record Series(String name, Color color, Function<SendBench.Point, SendBench.Result> result) {
    }

    private static final List<Series> SERIES = List.of(
            new Series("Mailroom", MAILROOM, SendBench.Point::mailroom),
            new Series("naive MDB", NAIVE, SendBench.Point::naive),
            new Series("guarded MDB", GUARDED, SendBench.Point::guarded));

    private SendChart() {
    }

    static void write(Path png, List<SendBench.Point> points, String title) {
        System.setProperty("java.awt.headless", "true");
        List<String> providers = new ArrayList<>();
        for (SendBench.Point p : points) {
            if (!providers.contains(p.provider())) {
                providers.add(p.provider());
            }
        }
        int width = Math.max(1, providers.size()) * PANEL_W;
        BufferedImage image = new BufferedImage(width, H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, H);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
            g.drawString(title, 10, 20);
            for (int i = 0; i < providers.size(); i++) {
                String provider = providers.get(i);
                panel(g, i * PANEL_W, provider, points.stream().filter(p -> p.provider().equals(provider)).toList());
            }
        } finally {
            g.dispose();
        }
        try {
            Files.createDirectories(png.toAbsolutePath().getParent());
            ImageIO.write(image, "png", png.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + png, e);
        }
    }

    private static void panel(Graphics2D g, int x0, String provider, List<SendBench.Point> points) {
        TreeSet<Integer> xs = new TreeSet<>();
        double maxRate = 1;
        for (SendBench.Point p : points) {
            xs.add(p.consumers());
            for (Series series : SERIES) {
                maxRate = Math.max(maxRate, series.result().apply(p).rate());
            }
        }
        int minX = xs.isEmpty() ? 0 : xs.first();
        int maxX = xs.isEmpty() ? 1 : Math.max(xs.last(), minX + 1);
        double yMax = niceCeiling(maxRate * 1.1);
        int plotW = PANEL_W - LEFT - RIGHT;
        int plotH = H - TOP - BOTTOM;
        int left = x0 + LEFT;
        int bottom = TOP + plotH;
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        g.setColor(Color.BLACK);
        g.drawString(provider + " provider", left, TOP - 50);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        for (int k = 0; k <= 5; k++) {
            double v = yMax * k / 5;
            int y = bottom - (int) Math.round(plotH * k / 5.0);
            g.setColor(new Color(0xe0e0e0));
            g.drawLine(left + 1, y, left + plotW - 1, y);
            g.setColor(Color.BLACK);
            String label = String.format(Locale.ROOT, "%.0f", v);
            g.drawString(label, left - 8 - g.getFontMetrics().stringWidth(label), y + 4);
        }
        g.drawRect(left, TOP, plotW, plotH); // after the grid, which would hide its top and bottom
        for (int x : xs) {
            int px = left + (int) Math.round(plotW * (x - minX) / (double) (maxX - minX));
            g.drawLine(px, bottom, px, bottom + 4);
            String label = Integer.toString(x);
            g.drawString(label, px - g.getFontMetrics().stringWidth(label) / 2, bottom + 18);
        }
        g.drawString("concurrency (MAILROOM_CONSUMERS)", left + plotW / 2 - 90, bottom + 40);
        g.rotate(-Math.PI / 2);
        g.drawString("jobs/s", -(TOP + plotH / 2 + 15), x0 + 16);
        g.rotate(Math.PI / 2);

        int legendY = TOP - 32;
        for (String db : points.stream().map(SendBench.Point::db).distinct().toList()) {
            int legendX = left;
            g.setColor(Color.BLACK);
            g.drawString(db + ":", legendX, legendY);
            legendX += 12 + g.getFontMetrics().stringWidth(db + ":");
            Stroke stroke = SendBench.H2.equals(db) ? new BasicStroke(2f)
                    : new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f);
            List<SendBench.Point> atDb = points.stream().filter(p -> p.db().equals(db))
                    .sorted((a, b) -> Integer.compare(a.consumers(), b.consumers())).toList();
            for (Series line : SERIES) {
                g.setColor(line.color());
                g.setStroke(stroke);
                int[] px = new int[atDb.size()];
                int[] py = new int[atDb.size()];
                for (int i = 0; i < atDb.size(); i++) {
                    SendBench.Point p = atDb.get(i);
                    double rate = line.result().apply(p).rate();
                    px[i] = left + (int) Math.round(plotW * (p.consumers() - minX) / (double) (maxX - minX));
                    py[i] = bottom - (int) Math.round(plotH * Math.min(rate, yMax) / yMax);
                    g.fillOval(px[i] - 3, py[i] - 3, 7, 7);
                }
                g.drawPolyline(px, py, atDb.size());
                String name = line.name();
                g.drawLine(legendX, legendY - 4, legendX + 24, legendY - 4);
                g.setStroke(new BasicStroke(1f));
                g.setColor(Color.BLACK);
                g.drawString(name, legendX + 28, legendY);
                legendX += 36 + g.getFontMetrics().stringWidth(name);
            }
            legendY += 16;
        }
        g.setStroke(new BasicStroke(1f));
    }

    private static double niceCeiling(double v) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
        for (double step : new double[] {1, 2, 2.5, 5, 10}) {
            if (step * magnitude >= v) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }
}
