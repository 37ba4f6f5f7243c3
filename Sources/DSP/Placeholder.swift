// DSP
