export interface TagVariableMapRecord {
  idx: number;
  adServerId: string;
  dataSignal: string;
  macroName: string;
  /** JSON object text, handed back as stored. */
  adServerParamsJson: string;
}

export interface TagVariableMapInput {
  adServerId: string;
  dataSignal: string;
  macroName: string;
  /** JSON object text; empty means {}. */
  adServerParamsJson: string;
}
