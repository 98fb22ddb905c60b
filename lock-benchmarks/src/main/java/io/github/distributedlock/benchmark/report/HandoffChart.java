package io.github.distributedlock.benchmark.report;

import java.util.List;
import java.util.Locale;

import io.github.distributedlock.benchmark.Library;

/**
 * A hand-written SVG of the contended scenario: hand-off gap p50 and p99 on a log scale,
 * and acquisitions per second, per library and process count. It uses the viewer's
 * sans-serif font and loads nothing.
 */
public final class HandoffChart {

	private static final int LABEL_WIDTH = 190;

	private static final int PLOT_WIDTH = 460;

	/**
	 * Room right of the plot for the value labels of the longest bars.
	 */
	private static final int WIDTH = LABEL_WIDTH + PLOT_WIDTH + 190;

	private static final int ROW = 22;

	private static final int GROUP_GAP = 26;

	private HandoffChart() {
	}

	/**
	 * Render the chart.
	 * @param results the contended results
	 * @return the SVG document
	 */
	public static String render(List<ContendedResult> results) {
		double maxMicros = results.stream()
			.mapToDouble((r) -> r.handoffGap().p99Micros())
			.filter(Double::isFinite)
			.max()
			.orElse(1000);
		int decades = Math.max(3, (int) Math.ceil(Math.log10(Math.max(maxMicros, 10))) - 1);
		double maxRate = results.stream().mapToDouble(ContendedResult::acquisitionsPerSecond).max().orElse(1);
		StringBuilder svg = new StringBuilder();
		int panel = panelHeight(results);
		int height = 2 * panel + 40;
		svg.append(String.format(Locale.ROOT,
				"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
						+ "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
				WIDTH, height, WIDTH, height));
		svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
		int y = handoffPanel(svg, results, 20, decades);
		ratePanel(svg, results, y + 20, maxRate);
		return svg.append("</svg>\n").toString();
	}

	private static int panelHeight(List<ContendedResult> results) {
		return 60 + results.size() * ROW + ContendedShape.ALL.size() * GROUP_GAP;
	}

	private static int handoffPanel(StringBuilder svg, List<ContendedResult> results, int top, int decades) {
		title(svg, top, "Contended hand-off gap: release call → next holder's acquire (log scale, lower is better; "
				+ "dark p50, light p99)");
		int plotTop = top + 30;
		int y = rows(svg, results, plotTop, (result, rowY) -> {
			double p50 = result.handoffGap().p50Micros();
			double p99 = result.handoffGap().p99Micros();
			bar(svg, rowY, logX(p99, decades), color(result.library()), 0.35);
			bar(svg, rowY, logX(p50, decades), color(result.library()), 1);
			label(svg, LABEL_WIDTH + 8 + logX(p99, decades), rowY + 12, "p50 " + micros(p50) + " · p99 " + micros(p99));
		});
		for (int decade = 0; decade <= decades; decade++) {
			int x = LABEL_WIDTH + decade * PLOT_WIDTH / decades;
			gridLine(svg, x, plotTop - 4, y, micros(Math.pow(10, decade + 1)));
		}
		return y + 10;
	}

	private static void ratePanel(StringBuilder svg, List<ContendedResult> results, int top, double maxRate) {
		title(svg, top, "Contended acquisitions per second (higher is better)");
		int plotTop = top + 30;
		int y = rows(svg, results, plotTop, (result, rowY) -> {
			int width = (int) Math.round(PLOT_WIDTH * result.acquisitionsPerSecond() / maxRate);
			bar(svg, rowY, width, color(result.library()), 1);
			label(svg, LABEL_WIDTH + 8 + width, rowY + 12,
					String.format(Locale.ROOT, "%.0f/s", result.acquisitionsPerSecond()));
		});
		gridLine(svg, LABEL_WIDTH, plotTop - 4, y, "0");
	}

	private static int rows(StringBuilder svg, List<ContendedResult> results, int top, RowPainter painter) {
		int y = top;
		for (ContendedShape shape : ContendedShape.ALL) {
			svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s</text>\n", y + 12,
					escape(shape.describe())));
			y += ROW;
			for (ContendedResult result : results) {
				if (result.shape().equals(shape)) {
					label(svg, 24, y + 12, result.library().shortTitle());
					painter.paint(result, y);
					y += ROW;
				}
			}
			y += GROUP_GAP - ROW;
		}
		return y;
	}

	private static int logX(double micros, int decades) {
		if (!Double.isFinite(micros) || micros <= 10) {
			return 1;
		}
		return (int) Math.round(PLOT_WIDTH * Math.min(1, (Math.log10(micros) - 1) / decades));
	}

	private static void bar(StringBuilder svg, int y, int width, String color, double opacity) {
		svg.append(String.format(Locale.ROOT,
				"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"16\" fill=\"%s\" fill-opacity=\"%.2f\"/>\n", LABEL_WIDTH,
				y + 1, Math.max(1, width), color, opacity));
	}

	private static void gridLine(StringBuilder svg, int x, int top, int bottom, String text) {
		svg.append(String.format(Locale.ROOT,
				"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\" stroke-dasharray=\"2,3\"/>\n", x, top, x,
				bottom));
		svg.append(String.format(Locale.ROOT,
				"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\" font-size=\"10\">%s</text>\n", x,
				bottom + 12, text));
	}

	private static void title(StringBuilder svg, int y, String text) {
		svg.append(String.format(Locale.ROOT,
				"<text x=\"10\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">%s</text>\n", y + 10, escape(text)));
	}

	private static void label(StringBuilder svg, int x, int y, String text) {
		svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>\n", x, y, escape(text)));
	}

	private static String micros(double micros) {
		if (!Double.isFinite(micros)) {
			return "n/a";
		}
		if (micros >= 1000) {
			return String.format(Locale.ROOT, "%.1f ms", micros / 1000).replace(".0 ms", " ms");
		}
		return String.format(Locale.ROOT, "%.0f µs", micros);
	}

	private static String color(Library library) {
		return switch (library) {
			case FLOOR -> "#7f7f7f";
			case FENCED_FLOOR -> "#bcbd22";
			case ENGINE_FLOOR -> "#8c564b";
			case THIS_PROJECT -> "#1f77b4";
			case THIS_PROJECT_STRICT -> "#9467bd";
			case THIS_PROJECT_REACTIVE -> "#17becf";
			case REDISSON -> "#d62728";
			case SPRING_INTEGRATION -> "#2ca02c";
		};
	}

	private static String escape(String text) {
		return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
	}

	/**
	 * Paints the bars of one row.
	 */
	@FunctionalInterface
	private interface RowPainter {

		void paint(ContendedResult result, int y);

	}

}
