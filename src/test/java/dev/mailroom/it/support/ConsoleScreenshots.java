package dev.mailroom.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;

/**
 * Screenshots of the console taken by the browser tests, as PNGs under {@code <build dir>/console-screenshots/}
 * ({@code target/console-screenshots/}): the pages an operator works with ({@link #save}: the dashboard, a
 * group, a job page, a stopped redrive, each written on every run, docs/console.md shows the dashboard one) and the
 * failing moment of a test ({@link #failure}: PNG plus the page's URL and source).
 */
public final class ConsoleScreenshots {

    private ConsoleScreenshots() {
    }

    /** {@code target/console-screenshots}, next to the ITs' work directory; created on first use. */
    public static Path directory() {
        Path dir = ItEnvironment.workDir().getParent().resolve("console-screenshots");
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create " + dir, e);
        }
        return dir;
    }

    /**
     * Writes what the browser shows now as {@code <name>.png} (a name like {@code dashboard}, {@code group},
     * {@code job}, {@code redrive-stopped}), replacing the previous run's. A test calls it once the page shows what
     * it asserted, so the picture is of a page in a known state. Fails the test if the PNG cannot be written: a
     * screenshot docs/console.md relies on must not silently go missing.
     */
    public static Path save(WebDriver driver, String name) {
        Path target = directory().resolve(name + ".png");
        Dimension window = tallEnoughForThePage(driver);
        try {
            Path shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE).toPath();
            Files.copy(shot, target, StandardCopyOption.REPLACE_EXISTING);
            Files.deleteIfExists(shot);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the screenshot " + target, e);
        } finally {
            if (window != null) {
                driver.manage().window().setSize(window);
            }
        }
        System.err.println("[console-it] screenshot " + target);
        return target;
    }

    /**
     * Makes the window tall enough for the whole page (at most {@value #MOST_PIXELS} pixels), so the picture is of
     * the page and not of its first screen; answers the size to restore, or null when nothing was changed.
     */
    private static Dimension tallEnoughForThePage(WebDriver driver) {
        try {
            Dimension window = driver.manage().window().getSize();
            Object[] sizes = ((java.util.List<?>) ((JavascriptExecutor) driver).executeScript(
                    "return [document.documentElement.scrollHeight, window.innerHeight];")).toArray();
            int page = ((Number) sizes[0]).intValue();
            int viewport = ((Number) sizes[1]).intValue();
            if (page <= viewport) {
                return null;
            }
            int height = Math.min(MOST_PIXELS, window.getHeight() + page - viewport);
            driver.manage().window().setSize(new Dimension(window.getWidth(), height));
            return window;
        } catch (RuntimeException e) {
            System.err.println("[console-it] screenshot of the first screen only: " + e);
            return null;
        }
    }

    private static final int MOST_PIXELS = 4000;

    /**
     * The failing moment of test {@code name}: {@code failed-<name>.png} and {@code failed-<name>.html} (URL and page
     * source). Never throws: it runs while a failure is already being reported.
     */
    public static void failure(WebDriver driver, String name) {
        try {
            Path png = save(driver, "failed-" + name);
            Files.writeString(png.resolveSibling("failed-" + name + ".html"),
                    driver.getCurrentUrl() + "\n" + driver.getPageSource());
        } catch (RuntimeException | IOException e) {
            System.err.println("[console-it] no screenshot of the failure of " + name + ": " + e);
        }
    }
}
