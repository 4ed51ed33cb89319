#pragma once
// Shared looks of secondary text.
class QLabel;

namespace tapas {

// Captions, paths and hints: the window's text colour, softened, so they stay readable in light
// and dark palettes (the disabled colour is too faint to read).
void makeQuiet(QLabel* label);

} // namespace tapas
