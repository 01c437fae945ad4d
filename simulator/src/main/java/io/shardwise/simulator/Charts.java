package io.shardwise.simulator;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.List;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** Line and bar charts in one plain style, written as PNG (JFreeChart, headless). */
final class Charts {

  static {
    // Before any AWT class decides: PNGs are drawn without a display.
    System.setProperty("java.awt.headless", "true");
  }

  static final int WIDTH = 960;
  static final int HEIGHT = 600;

  private static final Color[] PALETTE = {
    new Color(0x1f77b4),
    new Color(0xd62728),
    new Color(0x2ca02c),
    new Color(0xff7f0e),
    new Color(0x9467bd),
    new Color(0x8c564b),
    new Color(0xe377c2),
    new Color(0x7f7f7f),
    new Color(0x17becf)
  };

  private Charts() {}

  /** How a line is drawn: measurements solid with markers, predictions dashed or dotted. */
  enum Style {
    /** Markers only, for a measurement that lies on its prediction. */
    POINTS,
    SOLID,
    DASHED,
    DOTTED
  }

  /**
   * One line of a line chart.
   *
   * @param color index into the palette; a measurement and its predictions share a color
   */
  record Line(String name, double[] xs, double[] ys, int color, Style style) {
    Line {
      if (xs.length != ys.length) {
        throw new IllegalArgumentException("xs and ys differ in length");
      }
    }
  }

  /** A line chart; a log axis where asked. */
  static JFreeChart lines(
      String title, String xLabel, boolean logX, String yLabel, boolean logY, List<Line> lines) {
    XYSeriesCollection data = new XYSeriesCollection();
    for (Line line : lines) {
      XYSeries series = new XYSeries(line.name(), false, true);
      for (int i = 0; i < line.xs().length; i++) {
        series.add(line.xs()[i], line.ys()[i]);
      }
      data.addSeries(series);
    }
    JFreeChart chart =
        ChartFactory.createXYLineChart(
            title, xLabel, yLabel, data, PlotOrientation.VERTICAL, true, false, false);
    XYPlot plot = chart.getXYPlot();
    if (logX) {
      plot.setDomainAxis(logAxis(xLabel));
    }
    if (logY) {
      plot.setRangeAxis(logAxis(yLabel));
    } else {
      ((NumberAxis) plot.getRangeAxis()).setAutoRangeIncludesZero(false);
    }
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    for (int s = 0; s < lines.size(); s++) {
      Line line = lines.get(s);
      renderer.setSeriesPaint(s, PALETTE[line.color() % PALETTE.length]);
      renderer.setSeriesShapesVisible(
          s, line.style() == Style.POINTS || line.style() == Style.SOLID && line.xs().length <= 30);
      renderer.setSeriesLinesVisible(s, line.style() != Style.POINTS);
      renderer.setSeriesStroke(s, stroke(line.style()));
    }
    plot.setRenderer(renderer);
    style(chart);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(new Color(0xdddddd));
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    return chart;
  }

  /**
   * A grouped bar chart: {@code values[s][c]} is series {@code s} in category {@code c}. On a log
   * axis, values {@code <= 0} are not drawn.
   */
  static JFreeChart bars(
      String title,
      String categoryLabel,
      List<String> categories,
      String valueLabel,
      boolean logValues,
      List<String> series,
      double[][] values) {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (int s = 0; s < series.size(); s++) {
      for (int c = 0; c < categories.size(); c++) {
        double v = values[s][c];
        data.addValue(logValues && v <= 0 ? null : (Double) v, series.get(s), categories.get(c));
      }
    }
    JFreeChart chart =
        ChartFactory.createBarChart(
            title, categoryLabel, valueLabel, data, PlotOrientation.VERTICAL, true, false, false);
    CategoryPlot plot = chart.getCategoryPlot();
    if (logValues) {
      plot.setRangeAxis(logAxis(valueLabel));
    }
    if (categories.size() > 4) {
      CategoryAxis axis = plot.getDomainAxis();
      axis.setCategoryLabelPositions(CategoryLabelPositions.UP_45);
    }
    BarRenderer renderer = (BarRenderer) plot.getRenderer();
    // On a log axis the bars' base (zero) is off the scale: range the axis on the values only.
    renderer.setIncludeBaseInRange(!logValues);
    renderer.setBarPainter(new StandardBarPainter());
    renderer.setShadowVisible(false);
    renderer.setItemMargin(0.05);
    for (int s = 0; s < series.size(); s++) {
      renderer.setSeriesPaint(s, PALETTE[s % PALETTE.length]);
    }
    style(chart);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    return chart;
  }

  private static BasicStroke stroke(Style style) {
    switch (style) {
      case DASHED:
        return new BasicStroke(
            1.6f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {8f, 5f}, 0f);
      case DOTTED:
        return new BasicStroke(
            1.6f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 10f, new float[] {1.5f, 4f}, 0f);
      default:
        return new BasicStroke(2.2f);
    }
  }

  private static ValueAxis logAxis(String label) {
    LogAxis axis = new LogAxis(label);
    axis.setBase(10);
    axis.setNumberFormatOverride(new DecimalFormat("0.######"));
    axis.setSmallestValue(1e-6);
    // Ticks at powers of ten, with unlabelled minor ticks between.
    axis.setTickUnit(new NumberTickUnit(1));
    axis.setMinorTickCount(9);
    axis.setMinorTickMarksVisible(true);
    return axis;
  }

  private static void style(JFreeChart chart) {
    chart.setBackgroundPaint(Color.WHITE);
    chart.getTitle().setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
    chart.setAntiAlias(true);
  }

  static void writePng(JFreeChart chart, Path file) throws IOException {
    ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
  }
}
