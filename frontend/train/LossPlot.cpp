// The loss curve as SVG (see LossPlot.h).
#include "frontend/train/LossPlot.h"

#include "frontend/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace loom::train {

namespace {
std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}
std::string escape(const std::string &text) {
  std::string out;
  for (char c : text)
    out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  return out;
}
} // namespace

std::string LossPlot::svg() const {
  const double width = 720, height = 420, left = 64, right = 20, top = 40, bottom = 48;
  double maxStep = 1, lo = INFINITY, hi = -INFINITY;
  for (const auto *series : {&train, &eval})
    for (auto [step, loss] : *series) {
      maxStep = std::max(maxStep, static_cast<double>(step));
      lo = std::min(lo, loss), hi = std::max(hi, loss);
    }
  if (!std::isfinite(lo))
    lo = 0, hi = 1;
  if (hi - lo < 1e-9)
    hi = lo + 1;
  double pad = (hi - lo) * 0.05;
  // A loss is not negative: the axis stops at 0 rather than padding below it.
  lo = lo >= 0 ? std::max(0.0, lo - pad) : lo - pad, hi += pad;
  auto x = [&](double step) { return left + step / maxStep * (width - left - right); };
  auto y = [&](double loss) { return top + (hi - loss) / (hi - lo) * (height - top - bottom); };
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(width) +
                  "\" height=\"" + number(height) + "\" font-family=\"sans-serif\" "
                  "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += "<text x=\"" + number(width / 2) + "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" +
       escape(title) + "</text>\n";
  // Axes with five ticks each.
  s += "<g stroke=\"#888\">\n<line x1=\"" + number(left) + "\" y1=\"" + number(height - bottom) +
       "\" x2=\"" + number(width - right) + "\" y2=\"" + number(height - bottom) + "\"/>\n";
  s += "<line x1=\"" + number(left) + "\" y1=\"" + number(top) + "\" x2=\"" + number(left) +
       "\" y2=\"" + number(height - bottom) + "\"/>\n</g>\n";
  for (int i = 0; i <= 4; ++i) {
    double step = maxStep * i / 4, loss = lo + (hi - lo) * i / 4;
    s += "<text x=\"" + number(x(step)) + "\" y=\"" + number(height - bottom + 18) +
         "\" text-anchor=\"middle\">" + number(std::round(step)) + "</text>\n";
    s += "<text x=\"" + number(left - 6) + "\" y=\"" + number(y(loss) + 4) +
         "\" text-anchor=\"end\">" + number(loss) + "</text>\n";
  }
  s += "<text x=\"" + number(width / 2) + "\" y=\"" + number(height - 10) +
       "\" text-anchor=\"middle\">step</text>\n";
  auto line = [&](const std::vector<std::pair<int64_t, double>> &series, const char *colour,
                  const char *label, double legendY) {
    if (series.empty())
      return;
    s += std::string("<polyline fill=\"none\" stroke=\"") + colour + "\" stroke-width=\"2\" points=\"";
    for (auto [step, loss] : series)
      s += number(x(static_cast<double>(step))) + "," + number(y(loss)) + " ";
    s += "\"/>\n";
    for (auto [step, loss] : series)
      s += std::string("<circle r=\"2.5\" fill=\"") + colour + "\" cx=\"" +
           number(x(static_cast<double>(step))) + "\" cy=\"" + number(y(loss)) + "\"/>\n";
    s += std::string("<text x=\"") + number(width - right - 110) + "\" y=\"" + number(legendY) +
         "\" fill=\"" + colour + "\">" + label + "</text>\n";
  };
  line(train, "#1f77b4", "train loss", top + 14);
  line(eval, "#d62728", "eval loss", top + 30);
  return s + "</svg>\n";
}

void LossPlot::write(const std::string &path) const {
  std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << svg();
    if (!out)
      throw Error(path + ": cannot write the loss plot");
  }
  std::filesystem::rename(temporary, path);
}

} // namespace loom::train
